package dev.cohort.scheduler.jobs;

/**
 * A new job as asked for over HTTP or by the lead's {@code schedule_cron} tool. Only {@code cron} and {@code prompt}
 * are required; defaults: target {@code lead}, recurring and durable true (as in the seed), timezone {@code UTC},
 * missedPolicy {@code skip}, createdBy {@code api}.
 */
public record CronJobRequest(String cron, String prompt, String target, Boolean recurring, Boolean durable,
        String timezone, String missedPolicy, String createdBy) {
}
