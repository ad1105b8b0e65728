package dev.cohort.core.host;

/**
 * The saved phase of a hosted agent. Only {@link #WORKING} has a thread (while its turn runs); the others are rows
 * in the agent store and, on the owning replica, an entry for the host's sweeper.
 */
public enum Phase {
    /** Nothing to do until an input arrives (or, with a deadline, until it passes). */
    IDLE("idle"),
    /** A turn is running (or was, when its host stopped: the next owner resumes it). */
    WORKING("working"),
    /** The turn is parked on an approval: no thread; woken when it is answered or expires. */
    WAITING_APPROVAL("waiting_approval"),
    /** The agent waits for a protocol reply (a plan review, a shutdown answer): no thread; woken by the reply. */
    WAITING_REPLY("waiting_reply");

    private final String wire;

    Phase(String wire) {
        this.wire = wire;
    }

    /** The stored and displayed form ({@code status} of the agent row). */
    public String wire() {
        return wire;
    }

    public static Phase of(String wire) {
        for (Phase p : values()) {
            if (p.wire.equals(wire)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown agent phase '" + wire + "'");
    }
}
