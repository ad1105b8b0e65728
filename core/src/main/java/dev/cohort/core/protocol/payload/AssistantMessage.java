package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.EventType;
import java.util.List;

/**
 * {@code assistant_message}: a model reply appended to the conversation.
 *
 * @param turnId       the turn
 * @param finishReason the provider's finish reason ({@code stop}, {@code tool_calls}, {@code length}, …)
 * @param inputTokens  prompt tokens of the call
 * @param outputTokens completion tokens of the call
 * @param text         the reply's text, absent without one
 * @param toolCalls    the names of the tools it calls, in order
 * @param subagent     {@code true} for a subagent's reply, absent otherwise
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AssistantMessage(String turnId, String finishReason, long inputTokens, long outputTokens, String text,
        List<String> toolCalls, Boolean subagent) implements EventPayload {
    @Override
    public EventType type() {
        return EventType.ASSISTANT_MESSAGE;
    }
}
