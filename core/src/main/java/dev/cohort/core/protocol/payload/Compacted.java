package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.EventType;

/**
 * {@code compacted}: a compaction layer changed the conversation.
 *
 * @param turnId         the turn
 * @param layer          {@code L0} … {@code L3}
 * @param changed        L0–L2: how many messages the layer changed
 * @param reason         L3: {@code auto}, {@code manual} or {@code reactive}
 * @param transcript     where the full text went, when stored
 * @param messagesBefore messages before
 * @param messagesAfter  messages after
 * @param tokensBefore   estimated prompt tokens before
 * @param tokensAfter    estimated prompt tokens after
 * @param focus          L3 on request: what the summary had to keep
 * @param subagent       {@code true} in a subagent's loop, absent otherwise
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Compacted(String turnId, String layer, Integer changed, String reason, String transcript,
        int messagesBefore, int messagesAfter, long tokensBefore, long tokensAfter, String focus, Boolean subagent)
        implements EventPayload {
    @Override
    public EventType type() {
        return EventType.COMPACTED;
    }
}
