package dev.cohort.core.engine;

import java.time.Duration;

/**
 * Error recovery. Hosts fill it from {@code cohort.engine.recovery.*}.
 *
 * @param maxAttempts              attempts per model call, the first included (the seed's 10); no sleep after the last
 * @param baseDelay                first backoff (the seed's 500 ms), doubled per attempt
 * @param maxDelay                 backoff cap (the seed's 32 s)
 * @param maxRetryAfter            cap on a server's {@code Retry-After} (5 min: a broken header must not park an
 *                                 agent for hours; longer outages end the turn after the attempts)
 * @param jitterRatio              jitter as a fraction of the delay (the seed's 0.25)
 * @param overloadsBeforeFallback  consecutive overloads (529/503) before switching to the fallback (the seed's 3)
 * @param fallbackModel            {@code FALLBACK_MODEL}, null for none; used for the following attempts and the
 *                                 rest of the turn
 * @param escalatedMaxOutputTokens the raised output limit after a {@code length} finish (the seed's 64000), capped by
 *                                 the model's configured maximum ({@link CompactionSettings#limitsFor})
 * @param maxContinuations         continuation prompts after a truncated answer (the seed's 3)
 * @param maxTruncatedToolRounds   replies whose tool calls were cut off, answered with placeholders, before the
 *                                 turn ends (unbounded in the seed; 2 gives the model one more chance)
 */
public record RecoverySettings(int maxAttempts, Duration baseDelay, Duration maxDelay, Duration maxRetryAfter,
        double jitterRatio, int overloadsBeforeFallback, String fallbackModel, int escalatedMaxOutputTokens,
        int maxContinuations, int maxTruncatedToolRounds) {

    /** What the model is told after a truncated answer (the seed's CONTINUATION_PROMPT, in English). */
    public static final String CONTINUATION_PROMPT = "<continuation>Your output limit was reached. Continue exactly "
            + "where your text was cut off: no apology, no repetition.</continuation>";

    public RecoverySettings {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1");
        }
        fallbackModel = fallbackModel == null || fallbackModel.isBlank() ? null : fallbackModel;
    }

    public static RecoverySettings defaults() {
        return new RecoverySettings(10, Duration.ofMillis(500), Duration.ofSeconds(32), Duration.ofMinutes(5), 0.25, 3,
                null, 64000, 3, 2);
    }

    public RecoverySettings withFallbackModel(String m) {
        return new RecoverySettings(maxAttempts, baseDelay, maxDelay, maxRetryAfter, jitterRatio,
                overloadsBeforeFallback, m, escalatedMaxOutputTokens, maxContinuations, maxTruncatedToolRounds);
    }

    public RecoverySettings withJitterRatio(double r) {
        return new RecoverySettings(maxAttempts, baseDelay, maxDelay, maxRetryAfter, r, overloadsBeforeFallback,
                fallbackModel, escalatedMaxOutputTokens, maxContinuations, maxTruncatedToolRounds);
    }

    public RecoverySettings withMaxAttempts(int n) {
        return new RecoverySettings(n, baseDelay, maxDelay, maxRetryAfter, jitterRatio, overloadsBeforeFallback,
                fallbackModel, escalatedMaxOutputTokens, maxContinuations, maxTruncatedToolRounds);
    }
}
