package dev.cohort.lead.usage;

import dev.cohort.core.engine.Usage;

/**
 * Counters of a set of model calls.
 *
 * @param modelCalls       model calls
 * @param promptTokens     prompt tokens
 * @param completionTokens completion tokens
 * @param cachedTokens     prompt tokens served from the provider's cache (part of {@code promptTokens})
 * @param costUsd          cost at the configured prices
 */
public record UsageTotals(long modelCalls, long promptTokens, long completionTokens, long cachedTokens,
        double costUsd) {
    public static final UsageTotals ZERO = new UsageTotals(0, 0, 0, 0, 0);

    public UsageTotals plus(UsageTotals o) {
        return new UsageTotals(modelCalls + o.modelCalls, promptTokens + o.promptTokens,
                completionTokens + o.completionTokens, cachedTokens + o.cachedTokens, costUsd + o.costUsd);
    }

    /** The engine's view of these counters (for budgets). */
    public Usage asUsage() {
        return new Usage(promptTokens, completionTokens, modelCalls, costUsd, cachedTokens);
    }
}
