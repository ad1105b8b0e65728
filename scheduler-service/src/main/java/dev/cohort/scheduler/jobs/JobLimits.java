package dev.cohort.scheduler.jobs;

import dev.cohort.scheduler.config.SchedulerConfig;
import java.time.Duration;
import java.util.Optional;

/**
 * How many jobs a team may have and how often a recurring one may fire, for every job and, tighter, for jobs a model
 * created: pure decisions (CONVENTIONS #7), checked by {@link CronJobService} and, for the counts, inside the
 * repository's insert transaction. A job is <i>model-created</i> when its {@code createdBy} is an agent id,
 * {@code <team>/<name>}: what the lead's {@code schedule_cron} sends (the host sets it, never the model). Jobs people
 * create ({@code cohort cron add}: {@code cli}, the dashboard: {@code dashboard}, the HTTP API: {@code api} or any other
 * {@code createdBy} without a {@code /}) only meet the general limits.
 *
 * @param maxJobsPerTeam      jobs one team may have ({@code cohort.scheduler.max-jobs-per-team})
 * @param minInterval         shortest time between two firings of a recurring job ({@code cohort.scheduler.min-interval})
 * @param maxModelJobsPerTeam model-created jobs one team may have ({@code cohort.scheduler.model-jobs.max-per-team})
 * @param modelMinInterval    shortest time between two firings of a model-created recurring job
 *                            ({@code cohort.scheduler.model-jobs.min-interval}); the general one when that is longer
 */
public record JobLimits(int maxJobsPerTeam, Duration minInterval, int maxModelJobsPerTeam, Duration modelMinInterval) {

    /** The general limits' keys and the model-created jobs' ones, as errors name them. */
    public static final String MAX_JOBS_KEY = "cohort.scheduler.max-jobs-per-team";
    public static final String MIN_INTERVAL_KEY = "cohort.scheduler.min-interval";
    public static final String MAX_MODEL_JOBS_KEY = "cohort.scheduler.model-jobs.max-per-team";
    public static final String MODEL_MIN_INTERVAL_KEY = "cohort.scheduler.model-jobs.min-interval";

    /** The limits of {@code config}. */
    public static JobLimits of(SchedulerConfig config) {
        return new JobLimits(config.maxJobsPerTeam(), config.minInterval(), config.modelJobs().maxPerTeam(),
                config.modelJobs().minInterval());
    }

    /** Whether a job created by {@code createdBy} is model-created: an agent id, {@code <team>/<name>}. */
    public static boolean modelCreated(String createdBy) {
        return createdBy != null && createdBy.contains("/");
    }

    /** The SQL {@code LIKE} pattern of model-created jobs' {@code created_by}: the test of {@link #modelCreated}. */
    public static final String MODEL_CREATED_PATTERN = "%/%";

    /** The shortest interval a recurring job may have. */
    public Duration minIntervalFor(boolean model) {
        return model && modelMinInterval.compareTo(minInterval) > 0 ? modelMinInterval : minInterval;
    }

    /**
     * The refusal of a recurring job whose firings can be {@code gap} apart (empty: allowed), naming the limit's key;
     * a model-created job refused by its own limit is told that a person can create it.
     */
    public Optional<String> intervalRefusal(String cron, Duration gap, boolean model) {
        Duration min = minIntervalFor(model);
        if (gap.compareTo(min) >= 0) {
            return Optional.empty();
        }
        boolean own = model && min.compareTo(minInterval) > 0;
        return Optional.of("cron '" + cron + "' fires every " + CronJobService.human(gap) + "; the minimum interval"
                + (own ? " of a job an agent schedules is " : " is ") + CronJobService.human(min) + " ("
                + (own ? MODEL_MIN_INTERVAL_KEY : MIN_INTERVAL_KEY) + ")"
                + (own ? "; schedule it less often, or a person can create it (cohort cron add)" : ""));
    }

    /** Which limit one more job would break. */
    public enum Count {
        /** None: the job may be created. */
        OK,
        /** The team has {@link #maxJobsPerTeam} jobs. */
        TEAM_LIMIT,
        /** The team has {@link #maxModelJobsPerTeam} model-created jobs (and this one is model-created). */
        MODEL_LIMIT
    }

    /** The decision on one more job for a team that has {@code jobs} jobs, {@code modelJobs} of them model-created. */
    public Count check(long jobs, long modelJobs, boolean model) {
        if (jobs >= maxJobsPerTeam) {
            return Count.TEAM_LIMIT;
        }
        if (model && modelJobs >= maxModelJobsPerTeam) {
            return Count.MODEL_LIMIT;
        }
        return Count.OK;
    }

    /** The refusal's text for a limit {@link #check} reported. */
    public String countRefusal(String team, Count count) {
        return switch (count) {
            case TEAM_LIMIT -> "team '" + team + "' already has " + maxJobsPerTeam + " cron jobs, the limit ("
                    + MAX_JOBS_KEY + "); cancel one first";
            case MODEL_LIMIT -> "team '" + team + "' already has " + maxModelJobsPerTeam + " cron jobs scheduled by its"
                    + " agents, the limit (" + MAX_MODEL_JOBS_KEY + "); cancel one first, or a person can create the job"
                    + " (cohort cron add)";
            case OK -> throw new IllegalArgumentException("no refusal for OK");
        };
    }
}
