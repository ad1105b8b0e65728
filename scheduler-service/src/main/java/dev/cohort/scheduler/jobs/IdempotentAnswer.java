package dev.cohort.scheduler.jobs;

/**
 * The stored first answer to a keyed request ({@code Idempotency-Key}): what was asked (a digest of method, job id and
 * body) and what was answered.
 *
 * @param requestDigest SHA-256 of the request, see {@link CronJobService#digest}
 * @param status        201 for a create, 204 for a cancel
 * @param job           the job a create made, as it was at that moment; {@code null} for a cancel
 */
public record IdempotentAnswer(String requestDigest, int status, CronJob job) {
}
