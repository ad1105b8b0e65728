package dev.cohort.core.tools.cron;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.time.Instant;

/** A cron job as scheduler-service's API returns it ({@code GET /api/v1/teams/{team}/crons}); unknown fields ignored. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record CronJobInfo(String id, String team, String target, String cron, String prompt, boolean recurring,
        boolean durable, String timezone, String missedPolicy, String createdBy, Instant createdAt, Instant nextFireAt,
        Instant lastFiredAt, long fireCount, String note) {
}
