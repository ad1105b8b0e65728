package dev.cohort.scheduler.jobs;

import java.time.Instant;

/**
 * A scheduled job as stored: fires {@code prompt} at {@code target} ({@code lead} or a teammate name) of {@code team}
 * whenever {@code cron} matches in {@code timezone}. {@code ownerInstance} is set for non-durable jobs only: they live
 * as long as that scheduler replica.
 */
public record CronJob(String id, String team, String target, String cron, String prompt, boolean recurring,
        boolean durable, String timezone, MissedPolicy missedPolicy, String createdBy, Instant createdAt,
        String ownerInstance, Instant nextFireAt, Instant lastFiredAt, long fireCount) {
}
