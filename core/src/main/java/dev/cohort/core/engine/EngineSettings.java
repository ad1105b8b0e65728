package dev.cohort.core.engine;

import java.time.Duration;
import java.util.Map;

/**
 * The engine's tunables (CONVENTIONS #8: each default carries its reason; hosts override them from
 * {@code cohort.engine.*}).
 *
 * @param maxModelCallsPerTurn model calls per turn; at {@code max-1} the agent is told it has one step left
 *                             (XAgent). 50 is generous for a coding turn and bounds a runaway loop's cost.
 * @param subagentMaxModelCalls a subagent's cap (s06: 30).
 * @param maxStopContinuations times Stop hooks may force a turn to continue (seed gap 10.4#6: unbounded there).
 * @param todoReminderRounds   tool rounds without {@code todo_write} before a reminder (s05: 3).
 * @param stuckNoticeAt        repetitions before the stuck notice (3: twice can be a legitimate retry).
 * @param stuckEndAt           repetitions that end the turn (5: two more chances after the notice).
 * @param maxOutputTokens      output limit per model call (s01: 8000); {@code null} for the provider default.
 * @param model                the model name, {@code null} for the gateway's primary.
 * @param approvalTimeout      how long a call waits for a human before it is denied (10 min: a person at a
 *                             terminal answers within minutes; a longer wait holds the agent for nothing).
 * @param maxTokensPerTurn     token budget of one turn, 0 = unlimited.
 * @param maxTokensPerAgent    token budget over the agent's life, 0 = unlimited.
 * @param prices               price per model name, for cost reporting.
 * @param previewChars         characters of a tool result in {@code tool_call_finished} events (events are for
 *                             watching, not for transcripts; 300 fits a terminal line or two).
 */
public record EngineSettings(int maxModelCallsPerTurn, int subagentMaxModelCalls, int maxStopContinuations,
        int todoReminderRounds, int stuckNoticeAt, int stuckEndAt, Integer maxOutputTokens, String model,
        Duration approvalTimeout, long maxTokensPerTurn, long maxTokensPerAgent, Map<String, ModelPrice> prices,
        int previewChars) {

    public EngineSettings {
        prices = prices == null ? Map.of() : Map.copyOf(prices);
        if (maxModelCallsPerTurn < 2) {
            throw new IllegalArgumentException("maxModelCallsPerTurn must be at least 2");
        }
    }

    public static EngineSettings defaults() {
        return new EngineSettings(50, 30, 3, 3, 3, 5, 8000, null, Duration.ofMinutes(10), 0, 0, Map.of(), 300);
    }

    public EngineSettings withMaxModelCallsPerTurn(int n) {
        return new EngineSettings(n, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds, stuckNoticeAt,
                stuckEndAt, maxOutputTokens, model, approvalTimeout, maxTokensPerTurn, maxTokensPerAgent, prices, previewChars);
    }

    public EngineSettings withSubagentMaxModelCalls(int n) {
        return new EngineSettings(maxModelCallsPerTurn, n, maxStopContinuations, todoReminderRounds, stuckNoticeAt,
                stuckEndAt, maxOutputTokens, model, approvalTimeout, maxTokensPerTurn, maxTokensPerAgent, prices, previewChars);
    }

    public EngineSettings withBudgets(long perTurn, long perAgent) {
        return new EngineSettings(maxModelCallsPerTurn, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds,
                stuckNoticeAt, stuckEndAt, maxOutputTokens, model, approvalTimeout, perTurn, perAgent, prices, previewChars);
    }

    public EngineSettings withPrices(Map<String, ModelPrice> p) {
        return new EngineSettings(maxModelCallsPerTurn, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds,
                stuckNoticeAt, stuckEndAt, maxOutputTokens, model, approvalTimeout, maxTokensPerTurn, maxTokensPerAgent, p, previewChars);
    }

    public EngineSettings withApprovalTimeout(Duration d) {
        return new EngineSettings(maxModelCallsPerTurn, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds,
                stuckNoticeAt, stuckEndAt, maxOutputTokens, model, d, maxTokensPerTurn, maxTokensPerAgent, prices, previewChars);
    }

    /** The cost of one call's tokens on {@code modelName} (0 when no price is configured). */
    public double cost(String modelName, long in, long out) {
        ModelPrice p = modelName == null ? null : prices.get(modelName);
        if (p == null && model != null) {
            p = prices.get(model);
        }
        return p == null ? 0 : (in * p.inputPerMillion() + out * p.outputPerMillion()) / 1_000_000.0;
    }

    /**
     * @param inputPerMillion  USD per million prompt tokens
     * @param outputPerMillion USD per million completion tokens
     */
    public record ModelPrice(double inputPerMillion, double outputPerMillion) {
    }
}
