package dev.cohort.scheduler.firing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.scheduler.jobs.CronExpression;
import dev.cohort.scheduler.jobs.MissedPolicy;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The missed-firing rules, decided without a database or a clock. */
class FiringPlanTest {

    private static final Duration TOLERANCE = Duration.ofSeconds(60);
    private static final ZoneId UTC = ZoneOffset.UTC;
    private static final CronExpression HOURLY = CronExpression.parse("0 * * * *");
    private static final CronExpression EVERY_MINUTE = CronExpression.parse("* * * * *");
    private static final Instant T10 = Instant.parse("2030-05-05T10:00:00Z");

    @Test
    void anOnTimeRecurringJobFiresItsOccurrenceAndMovesToTheNext() {
        assertThat(FiringPlan.decide(HOURLY, UTC, true, MissedPolicy.SKIP, T10, T10.plusMillis(300), TOLERANCE))
                .isEqualTo(new FiringPlan(T10, false, T10.plusSeconds(3600), null));
    }

    @Test
    void aFiringUpToTheToleranceLateStillCountsAsOnTime() {
        assertThat(FiringPlan.decide(HOURLY, UTC, true, MissedPolicy.SKIP, T10, T10.plusSeconds(60), TOLERANCE))
                .isEqualTo(new FiringPlan(T10, false, T10.plusSeconds(3600), null));
    }

    @Test
    void anOnTimeOneShotJobFiresAndIsFinished() {
        assertThat(FiringPlan.decide(HOURLY, UTC, false, MissedPolicy.SKIP, T10, T10.plusSeconds(1), TOLERANCE))
                .isEqualTo(new FiringPlan(T10, false, null, null));
    }

    @Test
    void afterDowntimeSkipDropsTheMissedOccurrencesAndWaitsForTheNextOne() {
        Instant now = T10.plus(Duration.ofHours(3)).plusSeconds(600);
        assertThat(FiringPlan.decide(HOURLY, UTC, true, MissedPolicy.SKIP, T10, now, TOLERANCE))
                .isEqualTo(new FiringPlan(null, false, T10.plus(Duration.ofHours(4)), T10));
    }

    @Test
    void afterDowntimeFireOnceFiresOneCatchUpForTheFirstMissedOccurrence() {
        Instant now = T10.plus(Duration.ofHours(3)).plusSeconds(600);
        assertThat(FiringPlan.decide(HOURLY, UTC, true, MissedPolicy.FIRE_ONCE, T10, now, TOLERANCE))
                .isEqualTo(new FiringPlan(T10, true, T10.plus(Duration.ofHours(4)), T10));
    }

    @Test
    void anOccurrenceDueRightNowStandsInForTheMissedOnesWhateverThePolicy() {
        Instant now = T10.plus(Duration.ofHours(2)).plusSeconds(10);
        FiringPlan expected = new FiringPlan(T10.plus(Duration.ofHours(2)), false,
                T10.plus(Duration.ofHours(2)).plusSeconds(60), T10);
        assertThat(FiringPlan.decide(EVERY_MINUTE, UTC, true, MissedPolicy.SKIP, T10, now, TOLERANCE)).isEqualTo(expected);
        assertThat(FiringPlan.decide(EVERY_MINUTE, UTC, true, MissedPolicy.FIRE_ONCE, T10, now, TOLERANCE)).isEqualTo(expected);
    }

    @Test
    void aMissedOneShotJobExpiresUnderSkipAndFiresLateUnderFireOnce() {
        Instant now = T10.plus(Duration.ofMinutes(30));
        assertThat(FiringPlan.decide(HOURLY, UTC, false, MissedPolicy.SKIP, T10, now, TOLERANCE))
                .isEqualTo(new FiringPlan(null, false, null, T10));
        assertThat(FiringPlan.decide(HOURLY, UTC, false, MissedPolicy.FIRE_ONCE, T10, now, TOLERANCE))
                .isEqualTo(new FiringPlan(T10, true, null, T10));
    }
}
