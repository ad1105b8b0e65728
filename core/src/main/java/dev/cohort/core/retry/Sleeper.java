package dev.cohort.core.retry;

import java.time.Duration;

/** Waits between retries; injectable so tests observe the delays without sleeping. */
@FunctionalInterface
public interface Sleeper {
    /** {@link Thread#sleep}. */
    Sleeper REAL = d -> Thread.sleep(d.toMillis());

    void sleep(Duration d) throws InterruptedException;
}
