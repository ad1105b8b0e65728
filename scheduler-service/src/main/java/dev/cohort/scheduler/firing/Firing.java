package dev.cohort.scheduler.firing;

import dev.cohort.scheduler.jobs.CronJob;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;

/**
 * One firing of a job for one occurrence. Its ids are derived from (job, occurrence), so if a replica dies after
 * Kafka acknowledged but before its transaction committed, the re-fired records carry the same ids and consumers
 * (which dedupe on message id) see the occurrence once.
 *
 * @param job the job as claimed
 * @param dueAt the occurrence fired
 * @param catchUp whether this is a late catch-up for a missed occurrence ({@code missedPolicy: fire-once})
 * @param missedSince the first missed occurrence, or null
 * @param firedAt when the firing was decided
 */
public record Firing(CronJob job, Instant dueAt, boolean catchUp, Instant missedSince, Instant firedAt) {

    /** The id of the prompt (or agent message) this firing publishes. */
    public String messageId() {
        return derivedId("message");
    }

    /** The id of the {@code cron_fired} event. */
    public String eventId() {
        return derivedId("event");
    }

    /** Sent as the prompt's idempotency key: {@code cron/<job>/<occurrence>}. */
    public String idempotencyKey() {
        return "cron/" + job.id() + "/" + dueAt;
    }

    private String derivedId(String kind) {
        return UUID.nameUUIDFromBytes((kind + ":" + idempotencyKey()).getBytes(StandardCharsets.UTF_8)).toString();
    }
}
