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
 * @param model        the model that answered (the one asked for when the provider does not say)
 * @param cachedTokens prompt tokens served from the provider's cache (part of {@code inputTokens}; 0 if it says
 *                     nothing)
 * @param costUsd      the call's cost at the model's price (configured {@code cohort.engine.prices}, else the
 *                     built-in table); 0 without a price, which {@code priceKnown} says
 * @param cacheWriteTokens prompt tokens written to the provider's cache (part of {@code inputTokens}; 0 if it says
 *                     nothing, as OpenAI's API never does)
 * @param priceKnown   whether the model had a price: {@code false} means the cost is unknown, not 0
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AssistantMessage(String turnId, String finishReason, long inputTokens, long outputTokens, String text,
        List<String> toolCalls, Boolean subagent, String model, long cachedTokens, double costUsd,
        long cacheWriteTokens, boolean priceKnown)
        implements EventPayload {

    /** A reply without cache-write or price information (a known price assumed). */
    public AssistantMessage(String turnId, String finishReason, long inputTokens, long outputTokens, String text,
            List<String> toolCalls, Boolean subagent, String model, long cachedTokens, double costUsd) {
        this(turnId, finishReason, inputTokens, outputTokens, text, toolCalls, subagent, model, cachedTokens, costUsd,
                0, true);
    }

    /** A reply without model, cache or cost information. */
    public AssistantMessage(String turnId, String finishReason, long inputTokens, long outputTokens, String text,
            List<String> toolCalls, Boolean subagent) {
        this(turnId, finishReason, inputTokens, outputTokens, text, toolCalls, subagent, null, 0, 0);
    }

    @Override
    public EventType type() {
        return EventType.ASSISTANT_MESSAGE;
    }
}
