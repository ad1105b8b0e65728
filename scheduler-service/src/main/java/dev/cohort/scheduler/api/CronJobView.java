package dev.cohort.scheduler.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.scheduler.jobs.CronJob;
import dev.cohort.scheduler.jobs.MissedPolicy;
import java.time.Instant;

/**
 * A job as the API shows it. {@code note} tells a client what it may not expect, e.g. that a non-durable job ends with
 * the scheduler replica that holds it.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CronJobView(String id, String team, String target, String cron, String prompt, boolean recurring,
        boolean durable, String timezone, MissedPolicy missedPolicy, String createdBy, Instant createdAt,
        Instant nextFireAt, Instant lastFiredAt, long fireCount, String note) {

    static CronJobView of(CronJob j) {
        String note = j.durable() ? null
                : "not durable: this job lives only as long as scheduler instance " + j.ownerInstance()
                        + " and is gone after a scheduler restart";
        return new CronJobView(j.id(), j.team(), j.target(), j.cron(), j.prompt(), j.recurring(), j.durable(),
                j.timezone(), j.missedPolicy(), j.createdBy(), j.createdAt(), j.nextFireAt(), j.lastFiredAt(),
                j.fireCount(), note);
    }
}
