package dev.cohort.core.host;

import java.time.Instant;
import java.util.Objects;

/**
 * How a parked agent waits: its {@link Phase}, what it waits for (an approval or protocol request id; null for
 * none) and until when (null: no deadline). The host's sweeper wakes it when {@code waitingFor} is settled or the
 * deadline passed; any input on its inbox wakes it too.
 */
public record Park(Phase phase, String waitingFor, Instant deadline) {
    public Park {
        Objects.requireNonNull(phase, "phase");
        if (phase == Phase.WORKING) {
            throw new IllegalArgumentException("a working agent is not parked");
        }
    }

    /** Idle until an input arrives. */
    public static final Park IDLE = new Park(Phase.IDLE, null, null);

    /** Idle until an input arrives or {@code deadline} passes (a teammate's idle timeout). */
    public static Park idleUntil(Instant deadline) {
        return new Park(Phase.IDLE, null, Objects.requireNonNull(deadline, "deadline"));
    }

    /** True when the deadline is set and not after {@code now}. */
    public boolean expired(Instant now) {
        return deadline != null && !deadline.isAfter(now);
    }
}
