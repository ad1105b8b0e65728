package dev.cohort.lead.usage;

import dev.cohort.core.engine.Usage;
import java.util.List;
import java.util.TreeSet;

/**
 * Counters of a set of model calls.
 *
 * @param modelCalls       model calls
 * @param promptTokens     prompt tokens
 * @param completionTokens completion tokens
 * @param cachedTokens     prompt tokens served from the provider's cache (part of {@code promptTokens})
 * @param costUsd          cost at the known prices (the unpriced calls count 0)
 * @param cacheWriteTokens prompt tokens written to the provider's cache (part of {@code promptTokens})
 * @param unpricedCalls    model calls whose model had no known price: with any, {@code costUsd} is not the whole cost
 * @param unpricedModels   the models of those calls, sorted ({@code unknown} for a call that named none)
 */
public record UsageTotals(long modelCalls, long promptTokens, long completionTokens, long cachedTokens,
        double costUsd, long cacheWriteTokens, long unpricedCalls, List<String> unpricedModels) {
    public static final UsageTotals ZERO = new UsageTotals(0, 0, 0, 0, 0, 0, 0, List.of());

    public UsageTotals {
        unpricedModels = unpricedModels == null ? List.of() : List.copyOf(new TreeSet<>(unpricedModels));
    }

    /** Counters without cache writes, of priced calls. */
    public UsageTotals(long modelCalls, long promptTokens, long completionTokens, long cachedTokens, double costUsd) {
        this(modelCalls, promptTokens, completionTokens, cachedTokens, costUsd, 0, 0, List.of());
    }

    /** Whether {@link #costUsd} is the whole cost: every call had a known price. */
    public boolean priceKnown() {
        return unpricedCalls == 0;
    }

    public UsageTotals plus(UsageTotals o) {
        TreeSet<String> models = new TreeSet<>(unpricedModels);
        models.addAll(o.unpricedModels);
        return new UsageTotals(modelCalls + o.modelCalls, promptTokens + o.promptTokens,
                completionTokens + o.completionTokens, cachedTokens + o.cachedTokens, costUsd + o.costUsd,
                cacheWriteTokens + o.cacheWriteTokens, unpricedCalls + o.unpricedCalls, List.copyOf(models));
    }

    /** The engine's view of these counters (for budgets). */
    public Usage asUsage() {
        return new Usage(promptTokens, completionTokens, modelCalls, costUsd, cachedTokens, cacheWriteTokens,
                unpricedCalls);
    }
}
