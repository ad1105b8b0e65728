package dev.cohort.toolrunner.sandbox;

import static dev.cohort.toolrunner.Calls.bash;
import static dev.cohort.toolrunner.Calls.newTeam;
import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The idle timeout: a team sandbox unused for it is stopped, one in use is not, and the next call starts it again. */
@QuarkusTest
class TeamSandboxIdleTest {
    @Inject
    TeamSandboxes sandboxes;

    @AfterEach
    void asConfigured() {
        sandboxes.idleTimeout(null);
    }

    @Test
    void aSandboxIdleForTheTimeoutIsStoppedAndTheNextCallStartsItAgain() {
        Assumptions.assumeTrue(sandboxes.enabled(), "commands run without a sandbox in this run");
        String team = newTeam();
        assertThat(bash(team, "echo kept > kept.txt").exitCode()).isZero();
        List<Long> first = sandboxes.holderPids(team);
        assertThat(first).hasSize(1);

        sandboxes.idleTimeout(Duration.ofHours(1));
        sandboxes.stopIdle();
        assertThat(sandboxes.holderPids(team)).as("not idle for an hour").isEqualTo(first);

        sandboxes.idleTimeout(Duration.ZERO);
        sandboxes.stopIdle();
        assertThat(sandboxes.holderPids(team)).isEmpty();
        long holder = first.get(0);
        Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> ProcessHandle.of(holder).map(h -> !h.isAlive()).orElse(true));

        sandboxes.idleTimeout(null);
        assertThat(bash(team, "cat kept.txt").output()).isEqualTo("kept\n");
        assertThat(sandboxes.holderPids(team)).hasSize(1).doesNotContain(holder);
    }
}
