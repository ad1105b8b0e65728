package dev.cohort.core.retry;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The backoff delay before retry {@code attempt} (0-based), a pure function (CONVENTIONS #7): the server's
 * {@code Retry-After} when given (capped), else {@code min(base·2^attempt, max)} plus jitter in
 * {@code [0, jitterRatio·delay)} so that many agents do not retry in lockstep.
 */
public final class RetryPolicy {
    private RetryPolicy() {
    }

    /**
     * @param attempt     the failed attempt, 0-based
     * @param retryAfter  the server's hint or null
     * @param base        the first delay (the seed's 500 ms)
     * @param max         the cap of the computed delay (the seed's 32 s)
     * @param maxHonoured the cap of a server hint (a broken header must not park an agent for hours)
     * @param jitterRatio jitter as a fraction of the delay (the seed's 0.25)
     * @param random      a value in [0, 1)
     */
    public static Duration delay(int attempt, Duration retryAfter, Duration base, Duration max, Duration maxHonoured,
            double jitterRatio, double random) {
        if (retryAfter != null) {
            return retryAfter.compareTo(maxHonoured) > 0 ? maxHonoured : retryAfter;
        }
        long baseMs = base.toMillis();
        long exp = attempt >= 30 ? Long.MAX_VALUE : baseMs << attempt;
        long d = exp < 0 || exp > max.toMillis() ? max.toMillis() : exp;
        return Duration.ofMillis(d + (long) (d * jitterRatio * random));
    }

    /**
     * A {@code Retry-After} header's value as a delay from {@code now}: seconds (fractions allowed) or an HTTP date (a
     * past one is zero); {@code null} when it is neither, so the computed backoff applies.
     */
    public static Duration retryAfter(String value, Instant now) {
        try {
            String v = value.trim();
            if (v.matches("\\d+(\\.\\d+)?")) {
                return Duration.ofMillis((long) (Double.parseDouble(v) * 1000));
            }
            Duration d = Duration.between(now, ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
            return d.isNegative() ? Duration.ZERO : d;
        } catch (RuntimeException e) {
            return null;
        }
    }
}
