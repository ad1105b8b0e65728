package dev.cohort.teammate.lifecycle;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The clock of idle deadlines, shared by the lifecycle and the host's sweeper: the system clock, which tests may move
 * forward ({@link #advance}) to reach a deadline without waiting for it.
 */
@ApplicationScoped
public class TeammateClock extends Clock {

    private volatile Duration offset = Duration.ZERO;

    @Override
    public Instant instant() {
        return Instant.now().plus(offset);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    /** Moves this clock forward by {@code d}, for tests (the idle timeout without the wait). */
    public synchronized void advance(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("the clock only moves forward");
        }
        offset = offset.plus(d);
    }
}
