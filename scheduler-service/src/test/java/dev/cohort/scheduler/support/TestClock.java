package dev.cohort.scheduler.support;

import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/**
 * The application's clock in tests: real time plus a settable offset, so a test can put the service just before a
 * minute boundary and then measure, in real time, how soon after the boundary a job fires. Replaces the production
 * {@code InstantSource} (a default bean).
 */
@Singleton
public class TestClock implements InstantSource {

    private volatile Duration offset = Duration.ZERO;

    @Override
    public Instant instant() {
        return Instant.now().plus(offset);
    }

    /** From now on, the clock reads {@code t} and keeps running. */
    public void runFrom(Instant t) {
        offset = Duration.between(Instant.now(), t);
    }

    /** Back to real time. */
    public void reset() {
        offset = Duration.ZERO;
    }
}
