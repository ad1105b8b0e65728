package dev.cohort.core.host;

/**
 * A save matched no row with the expected version: another host adopted the agent since (or it was removed). The
 * host that gets this lets the agent go; it must never retry with a fresh version.
 */
public class OwnershipLostException extends RuntimeException {
    public OwnershipLostException(String message) {
        super(message);
    }
}
