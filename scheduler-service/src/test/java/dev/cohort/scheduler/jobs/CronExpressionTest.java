package dev.cohort.scheduler.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Cron syntax and matching against Vixie cron semantics, including where the tutorial deviates
 * ({@code *}{@code /2} in day-of-month, {@code 7} for Sunday, {@code *}{@code /5,10}, names, macros, {@code a-b/n}).
 * Calendar anchors: 2025-06-01 is a Sunday, 2025-06-02 a Monday, 2025-01-01 a Wednesday.
 */
class CronExpressionTest {

    @ParameterizedTest(name = "[{index}] ''{0}'' at {1} -> {2}")
    @CsvSource(delimiter = '|', textBlock = """
            * * * * *            | 2025-06-02T10:04 | true
            0 * * * *            | 2025-06-02T10:00 | true
            0 * * * *            | 2025-06-02T10:01 | false
            */15 * * * *         | 2025-06-02T10:45 | true
            */15 * * * *         | 2025-06-02T10:50 | false
            5,10,15 * * * *      | 2025-06-02T10:10 | true
            5,10,15 * * * *      | 2025-06-02T10:11 | false
            10-20 * * * *        | 2025-06-02T10:20 | true
            10-20 * * * *        | 2025-06-02T10:21 | false
            10-30/10 * * * *     | 2025-06-02T10:30 | true
            10-30/10 * * * *     | 2025-06-02T10:25 | false
            10-30/10 * * * *     | 2025-06-02T10:40 | false
            0-59/30 * * * *      | 2025-06-02T10:30 | true
            */5,10 * * * *       | 2025-06-02T10:10 | true
            */5,12 * * * *       | 2025-06-02T10:12 | true
            */5,12 * * * *       | 2025-06-02T10:13 | false
            10,*/5 * * * *       | 2025-06-02T10:35 | true
            0 9-17 * * *         | 2025-06-02T17:00 | true
            0 9-17 * * *         | 2025-06-02T18:00 | false
            0 */6 * * *          | 2025-06-02T18:00 | true
            0 */6 * * *          | 2025-06-02T20:00 | false
            23 0-20/2 * * *      | 2025-06-02T20:23 | true
            23 0-20/2 * * *      | 2025-06-02T21:23 | false
            0 0 */2 * *          | 2025-06-01T00:00 | true
            0 0 */2 * *          | 2025-06-02T00:00 | false
            0 0 */2 * *          | 2025-06-03T00:00 | true
            0 0 1 */5 *          | 2025-06-01T00:00 | true
            0 0 1 */5 *          | 2025-05-01T00:00 | false
            0 0 1 */5 *          | 2025-11-01T00:00 | true
            0 0 1 2-11/3 *       | 2025-08-01T00:00 | true
            0 0 1 2-11/3 *       | 2025-09-01T00:00 | false
            0 0 * * 7            | 2025-06-01T00:00 | true
            0 0 * * 0            | 2025-06-01T00:00 | true
            0 0 * * 7            | 2025-06-02T00:00 | false
            0 0 * * 0,7          | 2025-06-08T00:00 | true
            0 0 * * 5-7          | 2025-06-01T00:00 | true
            0 0 * * 5-7          | 2025-06-06T00:00 | true
            0 0 * * 5-7          | 2025-06-04T00:00 | false
            0 0 * * */2          | 2025-06-03T00:00 | true
            0 0 * * */2          | 2025-06-02T00:00 | false
            0 0 * * MON-FRI      | 2025-06-02T00:00 | true
            0 0 * * MON-FRI      | 2025-06-07T00:00 | false
            5 4 * * sun          | 2025-06-01T04:05 | true
            0 0 1 JAN *          | 2025-01-01T00:00 | true
            0 0 1 jan-mar *      | 2025-03-01T00:00 | true
            0 0 1 jan-mar *      | 2025-04-01T00:00 | false
            0 12 * JUN Mon       | 2025-06-02T12:00 | true
            0 12 * JUN Mon       | 2025-07-07T12:00 | false
            0 0 1 * 0            | 2025-06-01T00:00 | true
            0 0 1 * 0            | 2025-06-15T00:00 | true
            0 0 1 * 0            | 2025-07-01T00:00 | true
            0 0 1 * 0            | 2025-06-10T00:00 | false
            0 0 13 * FRI         | 2025-06-13T00:00 | true
            0 0 13 * FRI         | 2025-06-06T00:00 | true
            0 0 13 * FRI         | 2025-07-13T00:00 | true
            0 0 13 * FRI         | 2025-06-12T00:00 | false
            0 0 1,15 * 3         | 2025-06-04T00:00 | true
            0 0 1,15 * 3         | 2025-06-15T00:00 | true
            0 0 1,15 * 3         | 2025-06-05T00:00 | false
            0 0 * * 1            | 2025-06-01T00:00 | false
            0 0 15 * *           | 2025-06-15T00:00 | true
            0 0 15 * *           | 2025-06-16T00:00 | false
            0 0 */2 * 1          | 2025-06-09T00:00 | true
            0 0 */2 * 1          | 2025-06-02T00:00 | false
            0 0 */2 * 1          | 2025-06-03T00:00 | false
            0 0 1-31 * 1         | 2025-06-03T00:00 | true
            @hourly              | 2025-06-02T10:00 | true
            @hourly              | 2025-06-02T10:30 | false
            @daily               | 2025-06-02T00:00 | true
            @daily               | 2025-06-02T00:01 | false
            @midnight            | 2025-06-02T00:00 | true
            @weekly              | 2025-06-01T00:00 | true
            @weekly              | 2025-06-02T00:00 | false
            @monthly             | 2025-06-01T00:00 | true
            @monthly             | 2025-06-02T00:00 | false
            @yearly              | 2025-01-01T00:00 | true
            @yearly              | 2025-06-01T00:00 | false
            @ANNUALLY            | 2026-01-01T00:00 | true
            0 0 29 2 *           | 2024-02-29T00:00 | true
            59 23 31 12 *        | 2025-12-31T23:59 | true
            15 14 1 * *          | 2025-06-01T14:15 | true
            0 22 * * 1-5         | 2025-06-06T22:00 | true
            0 22 * * 1-5         | 2025-06-07T22:00 | false
            '  */10   *  * * *  ' | 2025-06-02T10:20 | true
            """)
    void matchesLikeVixieCron(String expression, LocalDateTime time, boolean expected) {
        assertThat(CronExpression.parse(expression).matches(time)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "[{index}] ''{0}'' -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            '* * * *'       | cron needs 5 fields (minute hour day-of-month month day-of-week), got 4 in '* * * *'
            '0 * * * * *'   | cron needs 5 fields (minute hour day-of-month month day-of-week), got 6 in '0 * * * * *' (seconds are not supported)
            60 * * * *      | minute: 60 is outside 0-59
            * 24 * * *      | hour: 24 is outside 0-23
            * * 0 * *       | day-of-month: 0 is outside 1-31
            * * 32 * *      | day-of-month: 32 is outside 1-31
            * * * 13 *      | month: 13 is outside 1-12
            * * * * 8       | day-of-week: 8 is outside 0-7
            * * * * 1-8     | day-of-week: 8 is outside 0-7
            * * * * 99999999999 | day-of-week: 99999999999 is outside 0-7
            */0 * * * *     | minute: step 0 is outside 1-60
            */61 * * * *    | minute: step 61 is outside 1-60
            * * * * 0-6/0   | day-of-week: step 0 is outside 1-7
            */x * * * *     | minute: step 'x' in '*/x' is not a number
            5/15 * * * *    | minute: '5/15' has a step without a range; write 5-59/15 or */15
            30-10 * * * *   | minute: range 30-10 is backwards (start after end)
            * * * * FRI-MON | day-of-week: range FRI-MON is backwards (start after end)
            '1,,2 * * * *'  | minute: empty list element in '1,,2'
            '1, * * * *'    | minute: empty list element in '1,'
            * * * FOO *     | month: 'FOO' is not a number or a name (JAN-DEC)
            * * * * MOO     | day-of-week: 'MOO' is not a number or a name (SUN-SAT)
            * MON * * *     | hour: 'MON' is not a number
            -1 * * * *      | minute: '-1' is not a number
            * * ? * *       | day-of-month: '?' is Quartz syntax, not supported by 5-field cron
            * * L * *       | day-of-month: 'L' is Quartz syntax, not supported by 5-field cron
            * * * * 5#3     | day-of-week: '5#3' is Quartz syntax, not supported by 5-field cron
            @reboot         | unknown macro '@reboot': use @hourly, @daily, @midnight, @weekly, @monthly, @yearly or @annually (@reboot has no meaning for a service)
            @often          | unknown macro '@often': use @hourly, @daily, @midnight, @weekly, @monthly, @yearly or @annually
            """)
    void rejectsInvalidExpressionsNamingTheFieldAndTheValue(String expression, String message) {
        assertThatThrownBy(() -> CronExpression.parse(expression))
                .isInstanceOf(InvalidCronException.class)
                .hasMessage(message);
    }

    @Test
    void rejectsABlankExpression() {
        assertThat(CronExpression.validate("  ")).startsWith("cron is empty");
        assertThat(CronExpression.validate("*/2 * * * *")).isNull();
    }

    @Test
    void nextMatchIsTheFirstMatchingMinuteStrictlyAfterTheGivenTime() {
        CronExpression every2 = CronExpression.parse("*/2 * * * *");

        assertThat(every2.nextMatch(LocalDateTime.parse("2025-06-02T10:04:30")))
                .contains(LocalDateTime.parse("2025-06-02T10:06"));
        assertThat(every2.nextMatch(LocalDateTime.parse("2025-06-02T10:03")))
                .contains(LocalDateTime.parse("2025-06-02T10:04"));
        assertThat(CronExpression.parse("0 0 29 2 *").nextMatch(LocalDateTime.parse("2025-03-01T00:00")))
                .contains(LocalDateTime.parse("2028-02-29T00:00"));
        assertThat(CronExpression.parse("30 23 31 * *").nextMatch(LocalDateTime.parse("2025-06-01T00:00")))
                .contains(LocalDateTime.parse("2025-07-31T23:30"));
    }

    @Test
    void anExpressionThatNeverMatchesHasNoNextMatch() {
        assertThat(CronExpression.parse("0 0 30 2 *").nextMatch(LocalDateTime.parse("2025-01-01T00:00"))).isEmpty();
        assertThat(CronExpression.parse("0 0 31 4,6,9,11 *").nextFire(Instant.parse("2025-01-01T00:00:00Z"), ZoneOffset.UTC))
                .isEmpty();
    }

    @Test
    void aJobInTheSkippedHourFiresOnceAtTheFirstValidMinuteAfterTheGap() {
        ZoneId berlin = ZoneId.of("Europe/Berlin");
        // 2025-03-30: 02:00 CET jumps to 03:00 CEST (= 01:00Z), so 02:30 does not exist that night
        CronExpression daily0230 = CronExpression.parse("30 2 * * *");

        assertThat(firings(daily0230, "2025-03-29T12:00:00Z", berlin, 2))
                .containsExactly(Instant.parse("2025-03-30T01:00:00Z"), Instant.parse("2025-03-31T00:30:00Z"));

        // every 15 minutes: 02:00, 02:15, 02:30, 02:45 and 03:00 all collapse into one firing at 03:00 CEST
        assertThat(firings(CronExpression.parse("*/15 * * * *"), "2025-03-30T00:40:00Z", berlin, 3))
                .containsExactly(Instant.parse("2025-03-30T00:45:00Z"), Instant.parse("2025-03-30T01:00:00Z"),
                        Instant.parse("2025-03-30T01:15:00Z"));

        // New York, 2025-03-09: 02:00 EST jumps to 03:00 EDT (= 07:00Z)
        assertThat(firings(CronExpression.parse("0 2 * * *"), "2025-03-08T12:00:00Z", ZoneId.of("America/New_York"), 2))
                .containsExactly(Instant.parse("2025-03-09T07:00:00Z"), Instant.parse("2025-03-10T06:00:00Z"));
    }

    @Test
    void aJobInTheRepeatedHourFiresOnceAtItsFirstOccurrence() {
        ZoneId berlin = ZoneId.of("Europe/Berlin");
        // 2025-10-26: 03:00 CEST falls back to 02:00 CET, so 02:00-02:59 happens twice (00:00Z-00:59Z and 01:00Z-01:59Z)
        assertThat(firings(CronExpression.parse("30 2 * * *"), "2025-10-25T12:00:00Z", berlin, 2))
                .containsExactly(Instant.parse("2025-10-26T00:30:00Z"), Instant.parse("2025-10-27T01:30:00Z"));

        assertThat(firings(CronExpression.parse("*/30 * * * *"), "2025-10-25T23:50:00Z", berlin, 4))
                .containsExactly(Instant.parse("2025-10-26T00:00:00Z"), Instant.parse("2025-10-26T00:30:00Z"),
                        Instant.parse("2025-10-26T02:00:00Z"), Instant.parse("2025-10-26T02:30:00Z"));

        // asked during the second pass (02:10 CET = 01:10Z): 02:30 already happened in the first pass
        assertThat(CronExpression.parse("30 2 * * *").nextFire(Instant.parse("2025-10-26T01:10:00Z"), berlin))
                .contains(Instant.parse("2025-10-27T01:30:00Z"));
    }

    @Test
    void utcHasNoDaylightSavingSurprises() {
        assertThat(firings(CronExpression.parse("0 */12 * * *"), "2025-03-30T00:00:00Z", ZoneOffset.UTC, 3))
                .containsExactly(Instant.parse("2025-03-30T12:00:00Z"), Instant.parse("2025-03-31T00:00:00Z"),
                        Instant.parse("2025-03-31T12:00:00Z"));
    }

    @Test
    void shortestGapFindsTheClosestConsecutiveFirings() {
        LocalDateTime from = LocalDateTime.parse("2025-06-01T00:00");
        assertThat(CronExpression.parse("*/2 * * * *").shortestGap(from, 500, Duration.ZERO)).contains(Duration.ofMinutes(2));
        assertThat(CronExpression.parse("0,1 0 * * *").shortestGap(from, 500, Duration.ZERO)).contains(Duration.ofMinutes(1));
        assertThat(CronExpression.parse("59 23 * * *").shortestGap(from, 500, Duration.ZERO)).contains(Duration.ofDays(1));
        assertThat(CronExpression.parse("0 0 30 2 *").shortestGap(from, 500, Duration.ZERO)).isEmpty();
    }

    private static List<Instant> firings(CronExpression cron, String after, ZoneId zone, int n) {
        List<Instant> out = new ArrayList<>();
        Instant t = Instant.parse(after);
        for (int i = 0; i < n; i++) {
            t = cron.nextFire(t, zone).orElseThrow();
            out.add(t);
        }
        return out;
    }
}
