package dev.cohort.core.engine;

/**
 * Token usage and its cost.
 *
 * @param inputTokens  prompt tokens
 * @param outputTokens completion tokens
 * @param calls        model calls counted
 * @param costUsd      cost at the configured prices (0 when no price is known)
 * @param cachedTokens prompt tokens served from the provider's cache (counted in {@code inputTokens} too)
 */
public record Usage(long inputTokens, long outputTokens, long calls, double costUsd, long cachedTokens) {
    public static final Usage ZERO = new Usage(0, 0, 0, 0, 0);

    /** Usage without cache information. */
    public Usage(long inputTokens, long outputTokens, long calls, double costUsd) {
        this(inputTokens, outputTokens, calls, costUsd, 0);
    }

    public long totalTokens() {
        return inputTokens + outputTokens;
    }

    public Usage plus(Usage o) {
        return o == null ? this : new Usage(inputTokens + o.inputTokens, outputTokens + o.outputTokens,
                calls + o.calls, costUsd + o.costUsd, cachedTokens + o.cachedTokens);
    }
}
