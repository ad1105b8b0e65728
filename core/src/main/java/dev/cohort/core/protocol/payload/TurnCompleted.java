package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.EventType;

/**
 * {@code turn_completed}: a turn ended (hosts add {@code promptId}, {@code promptIds} and {@code status}).
 *
 * @param turnId     the turn
 * @param reason     why it ended ({@code completed}, {@code max_model_calls}, {@code stuck}, {@code budget_exceeded},
 *                   {@code cancelled}, {@code error})
 * @param modelCalls model calls in the turn
 * @param text       the final answer, or why it stopped
 * @param usage      the turn's usage
 * @param agentUsage the agent's usage over its life
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TurnCompleted(String turnId, String reason, int modelCalls, String text, UsageView usage,
        UsageView agentUsage) implements EventPayload {
    @Override
    public EventType type() {
        return EventType.TURN_COMPLETED;
    }

    /**
     * Tokens and cost.
     *
     * @param inputTokens  prompt tokens
     * @param outputTokens completion tokens
     * @param costUsd      cost at the configured prices (0 without prices)
     */
    public record UsageView(long inputTokens, long outputTokens, double costUsd) {
    }
}
