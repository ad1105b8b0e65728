package dev.cohort.core.host;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Tunables of an {@link AgentHost}.
 *
 * @param instance        this replica's id, recorded as the owner of every agent it adopts (the fence itself is the version)
 * @param maxRunningTurns turns running at once (≥ 1); woken agents beyond it wait for a slot in arrival order
 * @param sweepInterval   how often the one sweeper checks parked agents' waits and deadlines
 * @param handoverTimeout how long a shutdown waits for detached agents to leave their step
 * @param clock           the sweeper's clock (deadlines)
 * @param keptSessions    most sessions of idle agents kept in memory for their next wake-up (the least recently
 *                        parked go first), for programs that allow it ({@link AgentProgram#keepIdleSession}); 0 = none
 */
public record HostSettings(String instance, int maxRunningTurns, Duration sweepInterval, Duration handoverTimeout,
        Clock clock, int keptSessions) {
    public HostSettings {
        if (instance == null || instance.isBlank()) {
            throw new IllegalArgumentException("a host needs its instance id");
        }
        if (maxRunningTurns < 1) {
            throw new IllegalArgumentException("cohort.host.max-running-turns must be at least 1 (it caps the turns a "
                    + "replica runs at once), was " + maxRunningTurns);
        }
        Objects.requireNonNull(sweepInterval, "sweepInterval");
        if (sweepInterval.isNegative() || sweepInterval.isZero()) {
            throw new IllegalArgumentException("cohort.host.sweep-interval must be positive, was " + sweepInterval);
        }
        Objects.requireNonNull(handoverTimeout, "handoverTimeout");
        if (handoverTimeout.isNegative()) {
            throw new IllegalArgumentException("cohort.host.handover-timeout must not be negative, was " + handoverTimeout);
        }
        clock = clock == null ? Clock.systemUTC() : clock;
        if (keptSessions < 0) {
            throw new IllegalArgumentException("cohort.host.kept-sessions must not be negative, was " + keptSessions);
        }
    }

    public HostSettings(String instance, int maxRunningTurns, Duration sweepInterval, Duration handoverTimeout,
            Clock clock) {
        this(instance, maxRunningTurns, sweepInterval, handoverTimeout, clock, DEFAULT_KEPT_SESSIONS);
    }

    /** As many idle sessions as turns may run at once by default: the heap they need is already planned for. */
    public static final int DEFAULT_KEPT_SESSIONS = 64;

    /** Defaults: 64 running turns, a sweep every 2 s, 5 s to hand over, 64 idle sessions kept. */
    public static HostSettings defaults(String instance) {
        return new HostSettings(instance, 64, Duration.ofSeconds(2), Duration.ofSeconds(5), Clock.systemUTC(),
                DEFAULT_KEPT_SESSIONS);
    }

    public HostSettings withMaxRunningTurns(int n) {
        return new HostSettings(instance, n, sweepInterval, handoverTimeout, clock, keptSessions);
    }

    public HostSettings withSweepInterval(Duration d) {
        return new HostSettings(instance, maxRunningTurns, d, handoverTimeout, clock, keptSessions);
    }

    public HostSettings withHandoverTimeout(Duration d) {
        return new HostSettings(instance, maxRunningTurns, sweepInterval, d, clock, keptSessions);
    }

    public HostSettings withClock(Clock c) {
        return new HostSettings(instance, maxRunningTurns, sweepInterval, handoverTimeout, c, keptSessions);
    }

    public HostSettings withKeptSessions(int n) {
        return new HostSettings(instance, maxRunningTurns, sweepInterval, handoverTimeout, clock, n);
    }
}
