package dev.cohort.toolrunner.sandbox;

import static dev.cohort.toolrunner.Calls.bash;
import static dev.cohort.toolrunner.Calls.newTeam;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A team's foreground commands take an entry into its sandbox started ahead (a warm sandbox whose prefix enters the
 * team sandbox), so nothing is started on the call's path; what they see is the team sandbox's.
 */
@QuarkusTest
class TeamSandboxWarmTest {
    @Inject
    TeamSandboxes teams;
    @Inject
    WarmSandboxes warm;
    @Inject
    ToolRunnerConfig config;

    @Test
    void aTeamsCallTakesAnEntryStartedAheadAndRunsInTheTeamsSandbox() {
        Assumptions.assumeTrue(teams.enabled() && warm.enabled(), "no team sandboxes or no warm entries in this run");
        warm.evictOver(0); // room for this team's pool (earlier tests' teams may hold max-pools of them)
        String team = newTeam();
        assertThat(bash(team, "echo kept > /tmp/note").exitCode()).isZero();
        await().atMost(Duration.ofSeconds(60)).until(() -> warm.keys().stream()
                .anyMatch(k -> k.team().equals(team) && warm.readyCount(k) == config.warmSandbox().size()));
        long pooled = warm.pooledCount();
        long holder = teams.holderPids(team).get(0);

        ToolCallResult r = bash(team, "cat /tmp/note; cat /proc/1/cmdline | tr '\\0' ' '");

        assertThat(warm.pooledCount()).as("served by an entry started ahead").isEqualTo(pooled + 1);
        assertThat(r.output()).as("%s", r).startsWith("kept\n").contains("cohort-team-sandbox");
        assertThat(teams.holderPids(team)).containsExactly(holder);
    }

    @Test
    void withEveryPoolInUseANewTeamsCallsStartTheirOwnEntryAndEvictNoPool() {
        Assumptions.assumeTrue(teams.enabled() && warm.enabled(), "no team sandboxes or no warm entries in this run");
        warm.evictOver(0);
        int max = config.warmSandbox().maxPools();
        for (int i = 0; i < max; i++) {
            assertThat(bash(newTeam(), "true").exitCode()).isZero();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> warm.keys().size() == max);
        java.util.List<WarmSandboxes.Key> pools = warm.keys();
        long pooled = warm.pooledCount();

        String late = newTeam();
        ToolCallResult first = bash(late, "echo one");
        ToolCallResult second = bash(late, "echo two");

        assertThat(first.output() + second.output()).isEqualTo("one\ntwo\n");
        assertThat(warm.pooledCount()).as("both started their own entry").isEqualTo(pooled);
        assertThat(warm.keys()).as("no pool evicted for the late team").containsExactlyInAnyOrderElementsOf(pools);
    }
}
