package dev.cohort.core.tools.cron;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * The cron limits in force on scheduler-service for one team, with the team's current counts
 * ({@code GET /api/v1/teams/{team}/crons/limits}); shown by {@code cohort budget}. A job is model-created when its
 * {@code createdBy} is an agent id ({@code <team>/<name>}, what {@code schedule_cron} sends).
 *
 * @param team                     the team
 * @param maxJobsPerTeam           jobs the team may have ({@code cohort.scheduler.max-jobs-per-team})
 * @param minIntervalSeconds       shortest time between two firings of any recurring job
 *                                 ({@code cohort.scheduler.min-interval})
 * @param maxModelJobsPerTeam      model-created jobs the team may have
 *                                 ({@code cohort.scheduler.model-jobs.max-per-team})
 * @param modelMinIntervalSeconds  shortest time between two firings of a model-created recurring job
 *                                 ({@code cohort.scheduler.model-jobs.min-interval})
 * @param jobs                     the team's jobs now
 * @param modelJobs                of which model-created
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record CronLimits(String team, int maxJobsPerTeam, long minIntervalSeconds, int maxModelJobsPerTeam,
        long modelMinIntervalSeconds, long jobs, long modelJobs) {
}
