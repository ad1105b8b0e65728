package dev.cohort.scheduler.jobs;

/** A request the scheduler refuses; {@link Kind} decides the HTTP status and problem type, the message is the detail. */
public class CronRequestException extends RuntimeException {

    /** Why a request was refused. */
    public enum Kind {
        /** A field is missing or malformed (prompt, target, timezone, missedPolicy, team id format, Idempotency-Key). */
        INVALID_REQUEST(400, "invalid-request", "Invalid request"),
        /** The cron expression does not parse, never fires, or fires more often than allowed. */
        INVALID_CRON(400, "invalid-cron", "Invalid cron expression"),
        /** lead-service does not know the team. */
        UNKNOWN_TEAM(400, "unknown-team", "Unknown team"),
        /** The team already has the maximum number of jobs. */
        LIMIT_EXCEEDED(400, "limit-exceeded", "Cron job limit reached"),
        /** An {@code Idempotency-Key} sent again with a different request (another body, job or method). */
        IDEMPOTENCY_KEY_REUSED(422, "idempotency-key-reused", "Idempotency key reused"),
        /** No such job in that team. */
        NOT_FOUND(404, "not-found", "Cron job not found"),
        /** lead-service could not be asked whether the team exists. */
        TEAM_LOOKUP_UNAVAILABLE(503, "team-lookup-unavailable", "Team lookup unavailable");

        public final int status;
        public final String slug;
        public final String title;

        Kind(int status, String slug, String title) {
            this.status = status;
            this.slug = slug;
            this.title = title;
        }
    }

    private final Kind kind;

    public CronRequestException(Kind kind, String detail) {
        super(detail);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
