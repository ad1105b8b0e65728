package dev.cohort.lead.tasks;

import java.util.List;

/**
 * A board operation the rules refuse. The model sees it as an error tool result (rule {@code task:<code>}), HTTP
 * clients as problem+json with the same code; {@link #blockers} and {@link #owner} name who or what is in the way.
 */
public class TaskRefusal extends RuntimeException {

    /** Why an operation was refused; each maps to one HTTP status. */
    public enum Code {
        /** Malformed argument: bad id, empty subject, over a size cap. */
        INVALID("invalid", 400),
        /** Unknown team or task, or a dependency that does not exist. */
        NOT_FOUND("not-found", 404),
        /** Dependencies not completed yet. */
        BLOCKED("blocked", 409),
        /** Someone else holds the task. */
        OWNED("owned", 409),
        /** The task is not in the state the operation needs (e.g. completing a pending task). */
        STATUS("status", 409),
        /** Only the holder may complete, release or renew. */
        NOT_OWNER("not-owner", 409),
        /** The lease token does not match the current claim (a stale holder). */
        LEASE_MISMATCH("lease-mismatch", 409),
        /** The lease ran out; the task is claimable again and must be claimed anew. */
        LEASE_EXPIRED("lease-expired", 409),
        /** The task names another assignee or role than the caller's. */
        NOT_ELIGIBLE("not-eligible", 409),
        /** The team's board is full. */
        LIMIT("limit", 409);

        private final String slug;
        private final int httpStatus;

        Code(String slug, int httpStatus) {
            this.slug = slug;
            this.httpStatus = httpStatus;
        }

        public String slug() {
            return slug;
        }

        public int httpStatus() {
            return httpStatus;
        }
    }

    /** A dependency that is not completed: id, subject and status (null subject/status = it does not exist). */
    public record Blocker(String id, String subject, String status) {
    }

    private final Code code;
    private final transient List<Blocker> blockers;
    private final String owner;

    public TaskRefusal(Code code, String message, List<Blocker> blockers, String owner) {
        super(message);
        this.code = code;
        this.blockers = blockers == null ? List.of() : List.copyOf(blockers);
        this.owner = owner;
    }

    public static TaskRefusal invalid(String message) {
        return new TaskRefusal(Code.INVALID, message, null, null);
    }

    public static TaskRefusal notFound(String message) {
        return new TaskRefusal(Code.NOT_FOUND, message, null, null);
    }

    public Code code() {
        return code;
    }

    /** The rule name for tool results and logs: {@code task:<code>}. */
    public String rule() {
        return "task:" + code.slug();
    }

    public List<Blocker> blockers() {
        return blockers;
    }

    public String owner() {
        return owner;
    }
}
