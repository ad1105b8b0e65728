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
 * @param recovery             error recovery: retries, backoff, fallback model, output-limit escalation (s11).
 * @param compaction           context compaction: model windows, thresholds, layers (s08).
 */
public record EngineSettings(int maxModelCallsPerTurn, int subagentMaxModelCalls, int maxStopContinuations,
        int todoReminderRounds, int stuckNoticeAt, int stuckEndAt, Integer maxOutputTokens, String model,
        Duration approvalTimeout, long maxTokensPerTurn, long maxTokensPerAgent, Map<String, ModelPrice> prices,
        int previewChars, RecoverySettings recovery, CompactionSettings compaction) {

    public EngineSettings {
        prices = prices == null ? Map.of() : Map.copyOf(prices);
        recovery = recovery == null ? RecoverySettings.defaults() : recovery;
        compaction = compaction == null ? CompactionSettings.defaults() : compaction;
        if (maxModelCallsPerTurn < 2) {
            throw new IllegalArgumentException("maxModelCallsPerTurn must be at least 2");
        }
    }

    /** The settings of engine (I), with default recovery and compaction (source compatibility). */
    public EngineSettings(int maxModelCallsPerTurn, int subagentMaxModelCalls, int maxStopContinuations,
            int todoReminderRounds, int stuckNoticeAt, int stuckEndAt, Integer maxOutputTokens, String model,
            Duration approvalTimeout, long maxTokensPerTurn, long maxTokensPerAgent, Map<String, ModelPrice> prices,
            int previewChars) {
        this(maxModelCallsPerTurn, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds, stuckNoticeAt,
                stuckEndAt, maxOutputTokens, model, approvalTimeout, maxTokensPerTurn, maxTokensPerAgent, prices,
                previewChars, null, null);
    }

    public static EngineSettings defaults() {
        return new EngineSettings(50, 30, 3, 3, 3, 5, 8000, null, Duration.ofMinutes(10), 0, 0, Map.of(), 300,
                RecoverySettings.defaults(), CompactionSettings.defaults());
    }

    public EngineSettings withRecovery(RecoverySettings r) {
        return new EngineSettings(maxModelCallsPerTurn, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds,
                stuckNoticeAt, stuckEndAt, maxOutputTokens, model, approvalTimeout, maxTokensPerTurn, maxTokensPerAgent,
                prices, previewChars, r, compaction);
    }

    public EngineSettings withCompaction(CompactionSettings c) {
        return new EngineSettings(maxModelCallsPerTurn, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds,
                stuckNoticeAt, stuckEndAt, maxOutputTokens, model, approvalTimeout, maxTokensPerTurn, maxTokensPerAgent,
                prices, previewChars, recovery, c);
    }

    public EngineSettings withMaxOutputTokens(Integer n) {
        return new EngineSettings(maxModelCallsPerTurn, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds,
                stuckNoticeAt, stuckEndAt, n, model, approvalTimeout, maxTokensPerTurn, maxTokensPerAgent,
                prices, previewChars, recovery, compaction);
    }

    public EngineSettings withModel(String m) {
        return new EngineSettings(maxModelCallsPerTurn, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds,
                stuckNoticeAt, stuckEndAt, maxOutputTokens, m, approvalTimeout, maxTokensPerTurn, maxTokensPerAgent,
                prices, previewChars, recovery, compaction);
    }

    public EngineSettings withMaxModelCallsPerTurn(int n) {
        return new EngineSettings(n, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds, stuckNoticeAt,
                stuckEndAt, maxOutputTokens, model, approvalTimeout, maxTokensPerTurn, maxTokensPerAgent, prices, previewChars, recovery, compaction);
    }

    public EngineSettings withSubagentMaxModelCalls(int n) {
        return new EngineSettings(maxModelCallsPerTurn, n, maxStopContinuations, todoReminderRounds, stuckNoticeAt,
                stuckEndAt, maxOutputTokens, model, approvalTimeout, maxTokensPerTurn, maxTokensPerAgent, prices, previewChars, recovery, compaction);
    }

    public EngineSettings withBudgets(long perTurn, long perAgent) {
        return new EngineSettings(maxModelCallsPerTurn, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds,
                stuckNoticeAt, stuckEndAt, maxOutputTokens, model, approvalTimeout, perTurn, perAgent, prices, previewChars, recovery, compaction);
    }

    public EngineSettings withPrices(Map<String, ModelPrice> p) {
        return new EngineSettings(maxModelCallsPerTurn, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds,
                stuckNoticeAt, stuckEndAt, maxOutputTokens, model, approvalTimeout, maxTokensPerTurn, maxTokensPerAgent, p, previewChars, recovery, compaction);
    }

    public EngineSettings withApprovalTimeout(Duration d) {
        return new EngineSettings(maxModelCallsPerTurn, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds,
                stuckNoticeAt, stuckEndAt, maxOutputTokens, model, d, maxTokensPerTurn, maxTokensPerAgent, prices, previewChars, recovery, compaction);
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
