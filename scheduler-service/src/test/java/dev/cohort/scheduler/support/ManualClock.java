package dev.cohort.scheduler.support;

import java.time.Instant;
import java.time.InstantSource;

/** A clock that only moves when told to: one per simulated scheduler replica. */
public final class ManualClock implements InstantSource {

    private volatile Instant now;

    public ManualClock(Instant start) {
        this.now = start;
    }

    @Override
    public Instant instant() {
        return now;
    }

    public void set(Instant t) {
        now = t;
    }
}
