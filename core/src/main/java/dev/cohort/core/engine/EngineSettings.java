package dev.cohort.core.engine;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The engine's tunables (CONVENTIONS #8: each default carries its reason; hosts override them from
 * {@code cohort.engine.*}).
 *
 * @param maxModelCallsPerTurn model calls per turn; at {@code max-1} the agent is told it has one step left
 *                             (XAgent). 50 is generous for a coding turn and bounds a runaway loop's cost.
 * @param subagentMaxModelCalls a subagent's cap (the seed's 30).
 * @param maxStopContinuations times Stop hooks may force a turn to continue (unbounded in the seed).
 * @param todoReminderRounds   tool rounds without {@code todo_write} before a reminder (the seed's 3).
 * @param stuckNoticeAt        repetitions before the stuck notice (3: twice can be a legitimate retry).
 * @param stuckEndAt           repetitions that end the turn (5: two more chances after the notice).
 * @param maxOutputTokens      output limit per model call (the seed's 8000); {@code null} for the provider default.
 * @param model                the model name, {@code null} for the gateway's primary.
 * @param approvalTimeout      how long a call waits for a human before it is denied (10 min: a person at a
 *                             terminal answers within minutes; a longer wait holds the agent for nothing).
 * @param maxTokensPerTurn     token budget of one turn, 0 = unlimited; always {@code budgets().tokensPerTurn()}.
 * @param maxTokensPerAgent    token budget over the agent's life, 0 = unlimited; always
 *                             {@code budgets().tokensPerAgent()}.
 * @param prices               configured price per model name, for cost reporting; they override the built-in
 *                             table ({@link ModelPrices}) per model.
 * @param previewChars         characters of a tool result in {@code tool_call_finished} events (events are for
 *                             watching, not for transcripts; 300 fits a terminal line or two).
 * @param recovery             error recovery: retries, backoff, fallback model, output-limit escalation.
 * @param compaction           context compaction: model windows, thresholds, layers.
 * @param budgets              token and cost budgets per turn, agent and team ({@link Budgets#defaults()}: unlimited
 *                             but the team's tokens per UTC day). Its two token budgets and {@code maxTokensPerTurn} /
 *                             {@code maxTokensPerAgent} are one value: a 0 on either side takes the other, two
 *                             different non-zero values are an error.
 */
public record EngineSettings(int maxModelCallsPerTurn, int subagentMaxModelCalls, int maxStopContinuations,
        int todoReminderRounds, int stuckNoticeAt, int stuckEndAt, Integer maxOutputTokens, String model,
        Duration approvalTimeout, long maxTokensPerTurn, long maxTokensPerAgent, Map<String, ModelPrice> prices,
        int previewChars, RecoverySettings recovery, CompactionSettings compaction, Budgets budgets) {

    public EngineSettings {
        prices = prices == null ? Map.of() : Map.copyOf(prices);
        recovery = recovery == null ? RecoverySettings.defaults() : recovery;
        compaction = compaction == null ? CompactionSettings.defaults() : compaction;
        if (maxModelCallsPerTurn < 2) {
            throw new IllegalArgumentException("maxModelCallsPerTurn must be at least 2");
        }
        if (budgets == null) {
            budgets = Budgets.defaults().withTokens(maxTokensPerTurn, maxTokensPerAgent);
        } else {
            maxTokensPerTurn = oneValue("maxTokensPerTurn", maxTokensPerTurn, "tokensPerTurn", budgets.tokensPerTurn());
            maxTokensPerAgent = oneValue("maxTokensPerAgent", maxTokensPerAgent, "tokensPerAgent",
                    budgets.tokensPerAgent());
            budgets = budgets.withTokens(maxTokensPerTurn, maxTokensPerAgent);
        }
    }

    /** The settings before budgets were a value of their own: token budgets only (source compatibility). */
    public EngineSettings(int maxModelCallsPerTurn, int subagentMaxModelCalls, int maxStopContinuations,
            int todoReminderRounds, int stuckNoticeAt, int stuckEndAt, Integer maxOutputTokens, String model,
            Duration approvalTimeout, long maxTokensPerTurn, long maxTokensPerAgent, Map<String, ModelPrice> prices,
            int previewChars, RecoverySettings recovery, CompactionSettings compaction) {
        this(maxModelCallsPerTurn, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds, stuckNoticeAt,
                stuckEndAt, maxOutputTokens, model, approvalTimeout, maxTokensPerTurn, maxTokensPerAgent, prices,
                previewChars, recovery, compaction, null);
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
                RecoverySettings.defaults(), CompactionSettings.defaults(), Budgets.defaults());
    }

    public EngineSettings withRecovery(RecoverySettings r) {
        return new EngineSettings(maxModelCallsPerTurn, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds,
                stuckNoticeAt, stuckEndAt, maxOutputTokens, model, approvalTimeout, maxTokensPerTurn, maxTokensPerAgent,
                prices, previewChars, r, compaction, budgets);
    }

    public EngineSettings withCompaction(CompactionSettings c) {
        return new EngineSettings(maxModelCallsPerTurn, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds,
                stuckNoticeAt, stuckEndAt, maxOutputTokens, model, approvalTimeout, maxTokensPerTurn, maxTokensPerAgent,
                prices, previewChars, recovery, c, budgets);
    }

    public EngineSettings withMaxOutputTokens(Integer n) {
        return new EngineSettings(maxModelCallsPerTurn, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds,
                stuckNoticeAt, stuckEndAt, n, model, approvalTimeout, maxTokensPerTurn, maxTokensPerAgent,
                prices, previewChars, recovery, compaction, budgets);
    }

    public EngineSettings withModel(String m) {
        return new EngineSettings(maxModelCallsPerTurn, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds,
                stuckNoticeAt, stuckEndAt, maxOutputTokens, m, approvalTimeout, maxTokensPerTurn, maxTokensPerAgent,
                prices, previewChars, recovery, compaction, budgets);
    }

    public EngineSettings withMaxModelCallsPerTurn(int n) {
        return new EngineSettings(n, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds, stuckNoticeAt,
                stuckEndAt, maxOutputTokens, model, approvalTimeout, maxTokensPerTurn, maxTokensPerAgent, prices, previewChars, recovery, compaction, budgets);
    }

    public EngineSettings withSubagentMaxModelCalls(int n) {
        return new EngineSettings(maxModelCallsPerTurn, n, maxStopContinuations, todoReminderRounds, stuckNoticeAt,
                stuckEndAt, maxOutputTokens, model, approvalTimeout, maxTokensPerTurn, maxTokensPerAgent, prices, previewChars, recovery, compaction, budgets);
    }

    /** These settings with the turn's and the agent's token budgets replaced (the other budgets kept). */
    public EngineSettings withBudgets(long perTurn, long perAgent) {
        return withBudgets(budgets.withTokens(perTurn, perAgent));
    }

    /** These settings with {@code b} as every budget. */
    public EngineSettings withBudgets(Budgets b) {
        Budgets all = b == null ? Budgets.unlimited() : b;
        return new EngineSettings(maxModelCallsPerTurn, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds,
                stuckNoticeAt, stuckEndAt, maxOutputTokens, model, approvalTimeout, all.tokensPerTurn(),
                all.tokensPerAgent(), prices, previewChars, recovery, compaction, all);
    }

    public EngineSettings withPrices(Map<String, ModelPrice> p) {
        return new EngineSettings(maxModelCallsPerTurn, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds,
                stuckNoticeAt, stuckEndAt, maxOutputTokens, model, approvalTimeout, maxTokensPerTurn, maxTokensPerAgent, p, previewChars, recovery, compaction, budgets);
    }

    public EngineSettings withApprovalTimeout(Duration d) {
        return new EngineSettings(maxModelCallsPerTurn, subagentMaxModelCalls, maxStopContinuations, todoReminderRounds,
                stuckNoticeAt, stuckEndAt, maxOutputTokens, model, d, maxTokensPerTurn, maxTokensPerAgent, prices, previewChars, recovery, compaction, budgets);
    }

    private static long oneValue(String name, long value, String budgetName, long budget) {
        if (value == budget || budget == 0) {
            return value;
        }
        if (value == 0) {
            return budget;
        }
        throw new IllegalArgumentException(name + " (" + value + ") and budgets." + budgetName + " (" + budget
                + ") disagree: set one of them");
    }

    /**
     * The price of {@code modelName}: a configured price ({@link #prices}) first, then the built-in table
     * ({@link ModelPrices#builtin()}), each matched by {@link ModelPrices#match}; a model without one falls back to
     * the price of the configured {@link #model}. Empty when none is known: the cost is then unknown, not 0.
     */
    public Optional<ModelPrice> price(String modelName) {
        Optional<ModelPrice> p = priceOf(modelName);
        return p.isPresent() || model == null || model.equals(modelName) ? p : priceOf(model);
    }

    private Optional<ModelPrice> priceOf(String name) {
        if (name == null || name.isBlank()) {
            return Optional.empty();
        }
        Optional<ModelPrice> configured = ModelPrices.match(prices, name);
        return configured.isPresent() ? configured : ModelPrices.builtin().find(name);
    }

    /**
     * One model call's usage: its tokens, its cost at {@link #price} and, when no price is known, one unpriced call
     * (cost 0 in the sum, and said so).
     */
    public Usage usageOf(ModelClient.Reply r) {
        Optional<ModelPrice> p = price(r.model());
        double cost = p.map(x -> x.cost(r.inputTokens(), r.outputTokens(), r.cachedTokens(), r.cacheWriteTokens()))
                .orElse(0.0);
        return new Usage(r.inputTokens(), r.outputTokens(), 1, cost, r.cachedTokens(), r.cacheWriteTokens(),
                p.isPresent() ? 0 : 1);
    }

    /** The cost of one call's tokens on {@code modelName} (0 when no price is known). */
    public double cost(String modelName, long in, long out) {
        return cost(modelName, in, out, 0);
    }

    /**
     * The cost of one call's tokens on {@code modelName}, {@code cached} of the {@code in} prompt tokens at the cache
     * read price (0 when no price is known).
     */
    public double cost(String modelName, long in, long out, long cached) {
        return cost(modelName, in, out, cached, 0);
    }

    /**
     * The cost of one call's tokens on {@code modelName}: of the {@code in} prompt tokens, {@code cacheRead} at the
     * cache read price and {@code cacheWrite} at the cache write price (0 when no price is known).
     */
    public double cost(String modelName, long in, long out, long cacheRead, long cacheWrite) {
        return price(modelName).map(p -> p.cost(in, out, cacheRead, cacheWrite)).orElse(0.0);
    }

    /**
     * A model's list prices, USD per million tokens.
     *
     * @param inputPerMillion       prompt tokens neither read from nor written to the provider's cache
     * @param outputPerMillion      completion tokens
     * @param cachedInputPerMillion prompt tokens read from the provider's cache (the cache read price)
     * @param cacheWritePerMillion  prompt tokens written to the provider's cache (Anthropic: 1.25 × input for the
     *                              5-minute cache; OpenAI charges no more than the input price)
     */
    public record ModelPrice(double inputPerMillion, double outputPerMillion, double cachedInputPerMillion,
            double cacheWritePerMillion) {
        /** A price whose cache writes cost the input price. */
        public ModelPrice(double inputPerMillion, double outputPerMillion, double cachedInputPerMillion) {
            this(inputPerMillion, outputPerMillion, cachedInputPerMillion, inputPerMillion);
        }

        /** A price without a cache discount: cached prompt tokens cost what other prompt tokens cost. */
        public ModelPrice(double inputPerMillion, double outputPerMillion) {
            this(inputPerMillion, outputPerMillion, inputPerMillion);
        }

        /** The cache read price (an alias of {@link #cachedInputPerMillion}). */
        public double cacheReadPerMillion() {
            return cachedInputPerMillion;
        }

        /**
         * USD of one call. {@code in} includes the cache reads and writes (as the wires report it), so the uncached
         * rest is {@code in - cacheRead - cacheWrite}; each token is counted at exactly one price.
         */
        public double cost(long in, long out, long cacheRead, long cacheWrite) {
            long read = Math.max(0, Math.min(cacheRead, in));
            long write = Math.max(0, Math.min(cacheWrite, in - read));
            long uncached = in - read - write;
            return (uncached * inputPerMillion + read * cachedInputPerMillion + write * cacheWritePerMillion
                    + Math.max(0, out) * outputPerMillion) / 1_000_000.0;
        }
    }
}
