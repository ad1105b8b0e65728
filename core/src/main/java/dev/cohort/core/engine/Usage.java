package dev.cohort.core.engine;

/**
 * Token usage and its cost.
 *
 * @param inputTokens      prompt tokens
 * @param outputTokens     completion tokens
 * @param calls            model calls counted
 * @param costUsd          cost at the known prices (configured, else the built-in table); the calls of a model
 *                         without a price count 0 here and are counted in {@code unpricedCalls}
 * @param cachedTokens     prompt tokens served from the provider's cache (counted in {@code inputTokens} too)
 * @param cacheWriteTokens prompt tokens written to the provider's cache (counted in {@code inputTokens} too)
 * @param unpricedCalls    model calls whose model has no known price: their cost is unknown, not 0
 */
public record Usage(long inputTokens, long outputTokens, long calls, double costUsd, long cachedTokens,
        long cacheWriteTokens, long unpricedCalls) {
    public static final Usage ZERO = new Usage(0, 0, 0, 0, 0, 0, 0);

    /** Usage without cache writes or unpriced calls. */
    public Usage(long inputTokens, long outputTokens, long calls, double costUsd, long cachedTokens) {
        this(inputTokens, outputTokens, calls, costUsd, cachedTokens, 0, 0);
    }

    /** Usage without cache information. */
    public Usage(long inputTokens, long outputTokens, long calls, double costUsd) {
        this(inputTokens, outputTokens, calls, costUsd, 0);
    }

    public long totalTokens() {
        return inputTokens + outputTokens;
    }

    /** Whether {@link #costUsd} is the whole cost: every call counted had a known price. */
    public boolean priceKnown() {
        return unpricedCalls == 0;
    }

    public Usage plus(Usage o) {
        return o == null ? this : new Usage(inputTokens + o.inputTokens, outputTokens + o.outputTokens,
                calls + o.calls, costUsd + o.costUsd, cachedTokens + o.cachedTokens,
                cacheWriteTokens + o.cacheWriteTokens, unpricedCalls + o.unpricedCalls);
    }
}
