package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The restart decision of {@code cohort up}'s supervisor: backoff, its reset, the window and giving up. */
class RestartPolicyTest {

    /** 1 s doubling to 30 s, reset after 60 s up, at most 3 restarts in 10 min. */
    private static final RestartPolicy POLICY = new RestartPolicy(Duration.ofSeconds(1), Duration.ofSeconds(30),
            Duration.ofSeconds(60), 3, Duration.ofMinutes(10));

    /** Every exit is at t = 1000 s; the earlier restarts are given as "seconds before the exit". */
    private static final Duration EXIT = Duration.ofSeconds(1000);

    @ParameterizedTest(name = "{0} quick exits, restarts {1} s ago, up {2} s -> {3}")
    @CsvSource(delimiter = '|', textBlock = """
            # quick exits | restarts (s ago) | up (s)  | decision
            0             |                  | 5       | restart after 1000 ms, number 1
            1             |                  | 5       | restart after 2000 ms, number 1
            2             |                  | 5       | restart after 4000 ms, number 1
            4             |                  | 5       | restart after 16000 ms, number 1
            5             |                  | 5       | restart after 30000 ms, number 1
            40            |                  | 5       | restart after 30000 ms, number 1
            3             |                  | 60      | restart after 1000 ms, number 1
            3             |                  | 59.999  | restart after 8000 ms, number 1
            1             | 30               | 20      | restart after 2000 ms, number 2
            2             | 30 10            | 5       | restart after 4000 ms, number 3
            2             | 599 30 10        | 5       | give up after 3
            2             | 600 30 10        | 5       | restart after 4000 ms, number 3
            0             | 900 800 700      | 100     | restart after 1000 ms, number 1
            """)
    void decidesFromTheQuickExitsTheUptimeAndTheRestartsWithinTheWindow(int quickExits, String ago, double up, String expected) {
        RestartPolicy.History history = new RestartPolicy.History(quickExits, agoToTimes(ago));
        Duration startedAt = EXIT.minusMillis(Math.round(up * 1000));
        assertThat(describe(POLICY.onExit(history, startedAt, EXIT))).isEqualTo(expected);
    }

    @Test
    void aRestartRemembersOneMoreQuickExitAndOnlyTheRestartsStillInTheWindow() {
        RestartPolicy.History history = new RestartPolicy.History(2, agoToTimes("700 30"));
        RestartPolicy.Decision d = POLICY.onExit(history, EXIT.minusSeconds(5), EXIT);
        assertThat(d).isEqualTo(new RestartPolicy.Restart(Duration.ofSeconds(4), 2,
                new RestartPolicy.History(3, List.of(EXIT.minusSeconds(30), EXIT))));
    }

    @Test
    void aStableRunStartsTheBackoffAgainButStillCountsInTheWindow() {
        RestartPolicy.History history = new RestartPolicy.History(4, agoToTimes("300"));
        assertThat(POLICY.onExit(history, EXIT.minusSeconds(120), EXIT)).isEqualTo(new RestartPolicy.Restart(Duration.ofSeconds(1), 2,
                new RestartPolicy.History(1, List.of(EXIT.minusSeconds(300), EXIT))));
    }

    @Test
    void withNoRestartsAllowedTheFirstExitGivesUp() {
        RestartPolicy none = RestartPolicy.defaults(0, Duration.ofMinutes(10));
        assertThat(none.onExit(RestartPolicy.History.NONE, Duration.ZERO, Duration.ofSeconds(5))).isEqualTo(new RestartPolicy.GiveUp(0));
    }

    @Test
    void theDefaultsBackOffFromOneSecondToThirtyAndResetAfterAMinute() {
        RestartPolicy d = RestartPolicy.defaults(5, Duration.ofMinutes(10));
        assertThat(d).isEqualTo(new RestartPolicy(Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofSeconds(60), 5,
                Duration.ofMinutes(10)));
    }

    @Test
    void aPolicyThatCouldNotWorkIsRefusedWithTheReason() {
        assertThatThrownBy(() -> RestartPolicy.defaults(-1, Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("max restarts must be 0 or more, not -1");
        assertThatThrownBy(() -> RestartPolicy.defaults(1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("the restart window must be positive, not PT0S");
        assertThatThrownBy(() -> new RestartPolicy(Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofSeconds(60), 1,
                Duration.ofMinutes(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("backoff delays must be positive, first <= max: PT2S, PT1S");
    }

    private static List<Duration> agoToTimes(String ago) {
        return ago == null ? List.of() : Arrays.stream(ago.trim().split("\\s+")).map(s -> EXIT.minusSeconds(Long.parseLong(s))).toList();
    }

    private static String describe(RestartPolicy.Decision d) {
        return switch (d) {
            case RestartPolicy.Restart r -> "restart after " + r.delay().toMillis() + " ms, number " + r.restartsInWindow();
            case RestartPolicy.GiveUp g -> "give up after " + g.restartsInWindow();
        };
    }
}
