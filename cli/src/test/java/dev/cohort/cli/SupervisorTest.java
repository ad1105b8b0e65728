package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What the supervisor's console lines say about an exit and a duration. */
class SupervisorTest {

    @ParameterizedTest(name = "exit value {0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            0   | exit code 0
            1   | exit code 1
            128 | exit code 128
            137 | killed by SIGKILL (exit code 137)
            143 | killed by SIGTERM (exit code 143)
            134 | killed by SIGABRT (exit code 134)
            138 | killed by signal 10 (exit code 138)
            193 | exit code 193
            """)
    void anExitValueAbove128IsNamedAsTheSignalThatKilledTheService(int code, String expected) {
        assertThat(Supervisor.describeExit(code)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} ms -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            1000   | 1 s
            30000  | 30 s
            1499   | 1 s
            90000  | 90 s
            600000 | 10 min
            """)
    void durationsAreShownInWholeSecondsOrMinutes(long millis, String expected) {
        assertThat(Supervisor.format(Duration.ofMillis(millis))).isEqualTo(expected);
    }
}
