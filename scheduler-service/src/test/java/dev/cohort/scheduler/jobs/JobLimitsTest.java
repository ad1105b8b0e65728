package dev.cohort.scheduler.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The limits on how many jobs a team keeps and how often they fire, for every job and for jobs agents create. */
class JobLimitsTest {

    private static final JobLimits DEFAULTS = new JobLimits(100, Duration.ofMinutes(1), 10, Duration.ofMinutes(10));

    @Test
    void aJobIsModelCreatedWhenItsCreatorIsAnAgentId() {
        assertThat(JobLimits.modelCreated("alpha/lead")).isTrue();
        assertThat(JobLimits.modelCreated("alpha/bob")).isTrue();
        assertThat(JobLimits.modelCreated("beta/lead")).isTrue();
        assertThat(JobLimits.modelCreated("cli")).isFalse();
        assertThat(JobLimits.modelCreated("dashboard")).isFalse();
        assertThat(JobLimits.modelCreated("api")).isFalse();
        assertThat(JobLimits.modelCreated(null)).isFalse();
    }

    @Test
    void everyMinuteIsRefusedForAnAgentsJobNamingTheKeyAndAllowedForAPersons() {
        assertThat(DEFAULTS.intervalRefusal("* * * * *", Duration.ofMinutes(1), true)).contains("cron '* * * * *' fires"
                + " every 1 minute; the minimum interval of a job an agent schedules is 10 minutes"
                + " (cohort.scheduler.model-jobs.min-interval); schedule it less often, or a person can create it"
                + " (cohort cron add)");
        assertThat(DEFAULTS.intervalRefusal("* * * * *", Duration.ofMinutes(1), false)).isEmpty();
        assertThat(DEFAULTS.intervalRefusal("*/10 * * * *", Duration.ofMinutes(10), true)).isEmpty();
        assertThat(DEFAULTS.minIntervalFor(true)).isEqualTo(Duration.ofMinutes(10));
        assertThat(DEFAULTS.minIntervalFor(false)).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void theLongerOfTheTwoIntervalsAppliesToAnAgentsJobAndItsOwnKeyIsNamedOnlyWhenItIsTheOneBroken() {
        JobLimits generalLonger = new JobLimits(100, Duration.ofMinutes(30), 10, Duration.ofMinutes(10));

        assertThat(generalLonger.minIntervalFor(true)).isEqualTo(Duration.ofMinutes(30));
        assertThat(generalLonger.intervalRefusal("*/15 * * * *", Duration.ofMinutes(15), true)).isEqualTo(Optional.of(
                "cron '*/15 * * * *' fires every 15 minutes; the minimum interval is 30 minutes"
                        + " (cohort.scheduler.min-interval)"));
    }

    @Test
    void theTeamsCapComesFirstAndTheAgentsCapCountsOnlyTheirJobs() {
        assertThat(DEFAULTS.check(0, 0, true)).isEqualTo(JobLimits.Count.OK);
        assertThat(DEFAULTS.check(9, 9, true)).isEqualTo(JobLimits.Count.OK);
        assertThat(DEFAULTS.check(10, 10, true)).isEqualTo(JobLimits.Count.MODEL_LIMIT);
        assertThat(DEFAULTS.check(10, 10, false)).as("a person's job").isEqualTo(JobLimits.Count.OK);
        assertThat(DEFAULTS.check(100, 3, false)).isEqualTo(JobLimits.Count.TEAM_LIMIT);
        assertThat(DEFAULTS.check(100, 10, true)).isEqualTo(JobLimits.Count.TEAM_LIMIT);
        assertThat(DEFAULTS.countRefusal("alpha", JobLimits.Count.MODEL_LIMIT)).isEqualTo("team 'alpha' already has 10"
                + " cron jobs scheduled by its agents, the limit (cohort.scheduler.model-jobs.max-per-team); cancel one"
                + " first, or a person can create the job (cohort cron add)");
        assertThat(DEFAULTS.countRefusal("alpha", JobLimits.Count.TEAM_LIMIT)).isEqualTo("team 'alpha' already has 100"
                + " cron jobs, the limit (cohort.scheduler.max-jobs-per-team); cancel one first");
    }
}
