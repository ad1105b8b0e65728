package dev.cohort.host.client;

/**
 * The lead answered a 4xx: the request is wrong or the board refuses it (blocked, owned by someone else, lease lost,
 * unknown team or task, missing or wrong internal token). Not retried: sending it again gets the same answer.
 * {@link #code()} is the board's refusal code ({@code blocked}, {@code owned}, {@code lease-expired}, ...) when the
 * lead gave one, {@link #owner()} the current holder when the refusal names one.
 */
public class LeadRefusedException extends RuntimeException {
    private final int status;
    private final String code;
    private final String owner;

    public LeadRefusedException(int status, String code, String detail, String owner) {
        super("lead-service refused (" + status + (code == null ? "" : " " + code) + "): " + detail);
        this.status = status;
        this.code = code;
        this.owner = owner;
    }

    /** The HTTP status (400-499). */
    public int status() {
        return status;
    }

    /** The board's refusal code, or {@code null}. */
    public String code() {
        return code;
    }

    /** Who holds the task, when the refusal says so; else {@code null}. */
    public String owner() {
        return owner;
    }
}
