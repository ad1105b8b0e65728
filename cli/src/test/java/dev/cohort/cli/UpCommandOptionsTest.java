package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** {@code cohort up} refuses replica and restart settings that cannot work before it starts anything. */
class UpCommandOptionsTest {

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', textBlock = """
            --lead-replicas  | 0  | cohort up: --lead-replicas must be 1 or more, not 0
            --lead-replicas  | -2 | cohort up: --lead-replicas must be 1 or more, not -2
            --max-restarts   | -1 | cohort up: --max-restarts must be 0 or more and --restart-window 1 s or more, not -1 and 600
            --restart-window | 0  | cohort up: --max-restarts must be 0 or more and --restart-window 1 s or more, not 5 and 0
            """)
    void badReplicaOrRestartSettingsAreRefusedWithExitCode2AndTheReason(String option, String value, String message) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        int rc;
        try (PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            System.setErr(e);
            rc = new CommandLine(new UpCommand()).execute(option, value);
        } finally {
            System.setErr(saved);
        }
        assertThat(rc).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8).strip()).isEqualTo(message);
    }
}
