package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.EventType;
import java.util.List;

/**
 * {@code turn_completed}: a turn ended. Like every event of its turn it carries the prompt it started with in the
 * envelope ({@code promptId}).
 *
 * @param turnId     the turn
 * @param reason     why it ended ({@code completed}, {@code max_model_calls}, {@code stuck}, {@code budget_exceeded},
 *                   {@code cancelled}, {@code error})
 * @param modelCalls model calls in the turn
 * @param text       the final answer, or why it stopped
 * @param usage      the turn's usage
 * @param agentUsage the agent's usage over its life
 * @param status     {@code completed} when {@code reason} is {@code completed}, else {@code failed} (clients read one
 *                   field)
 * @param message    a host's account of a turn it had to end (e.g. an unexpected failure)
 * @param promptIds  every prompt the turn answered, the one it started with first, injected ones included; absent when
 *                   it answered none
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TurnCompleted(String turnId, String reason, int modelCalls, String text, UsageView usage,
        UsageView agentUsage, String status, String message, List<String> promptIds)
        implements EventPayload {

    /** The engine's end of a turn, with its status. */
    public TurnCompleted(String turnId, String reason, int modelCalls, String text, UsageView usage,
            UsageView agentUsage, List<String> promptIds) {
        this(turnId, reason, modelCalls, text, usage, agentUsage, statusOf(reason), null,
                promptIds == null || promptIds.isEmpty() ? null : List.copyOf(promptIds));
    }

    /** {@code completed} for a turn that ended {@code completed}, {@code failed} for any other reason. */
    public static String statusOf(String reason) {
        return "completed".equals(reason) ? "completed" : "failed";
    }

    /** A turn a host ended itself, with a failed status and why. */
    public static TurnCompleted failedByHost(String turnId, String message, List<String> promptIds) {
        return new TurnCompleted(turnId, "error", 0, null, null, null, "failed", message,
                promptIds == null || promptIds.isEmpty() ? null : List.copyOf(promptIds));
    }
    @Override
    public EventType type() {
        return EventType.TURN_COMPLETED;
    }

    /**
     * Tokens and cost.
     *
     * @param inputTokens  prompt tokens
     * @param outputTokens completion tokens
     * @param costUsd      cost at the known prices (the calls of a model without a price count 0)
     * @param cachedTokens prompt tokens served from the provider's cache (part of {@code inputTokens})
     * @param cacheWriteTokens prompt tokens written to the provider's cache (part of {@code inputTokens})
     * @param unpricedCalls model calls whose model had no known price: with any, {@code costUsd} is not the whole
     *                     cost
     */
    public record UsageView(long inputTokens, long outputTokens, double costUsd, long cachedTokens,
            long cacheWriteTokens, long unpricedCalls) {
        /** A view without cache writes or unpriced calls. */
        public UsageView(long inputTokens, long outputTokens, double costUsd, long cachedTokens) {
            this(inputTokens, outputTokens, costUsd, cachedTokens, 0, 0);
        }

        /** A view without cache information. */
        public UsageView(long inputTokens, long outputTokens, double costUsd) {
            this(inputTokens, outputTokens, costUsd, 0);
        }
    }
}
