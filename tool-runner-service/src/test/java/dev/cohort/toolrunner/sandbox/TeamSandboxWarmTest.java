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
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A team's foreground commands run through entries into its sandbox that serve call after call (a stub inside the
 * team sandbox that forks each command), so nothing is started on the call's path but the command's own shell; what
 * they see is the team sandbox's, and nothing of one call is left for the next.
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
    void aTeamsEntryServesCallAfterCallInTheTeamsSandbox() {
        Assumptions.assumeTrue(teams.enabled() && warm.enabled(), "no team sandboxes or no warm entries in this run");
        String team = teamWithItsEntryBack();
        WarmSandboxes.Key key = entryKey(team);
        assertThat(bash(team, "echo kept > /tmp/note").exitCode()).isZero();
        long pooled = warm.pooledCount();
        long started = warm.startedForCallCount();
        long holder = teams.holderPids(team).get(0);

        ToolCallResult r = bash(team, "cat /tmp/note; cat /proc/1/cmdline | tr '\\0' ' '");
        ToolCallResult second = bash(team, "echo $$ $BASH_SUBSHELL $SHLVL; exit 7");
        ToolCallResult third = bash(team, "echo three");

        assertThat(r.output()).as("%s", r).startsWith("kept\n").contains("cohort-team-sandbox");
        assertThat(second.exitCode()).as("%s", second).isEqualTo(7);
        assertThat(second.output()).as("a new shell, as a cold start gives").endsWith(" 0 1\n");
        assertThat(third.output()).isEqualTo("three\n");
        assertThat(warm.pooledCount()).as("each served by the entry that came back").isEqualTo(pooled + 3);
        assertThat(warm.startedForCallCount()).as("no entry started for them").isEqualTo(started);
        assertThat(warm.readyCount(key)).isEqualTo(1);
        assertThat(teams.holderPids(team)).containsExactly(holder);
    }

    @Test
    void whatACallLeavesBehindIsKilledBeforeItsEntryServesAgain() {
        Assumptions.assumeTrue(teams.enabled() && warm.enabled(), "no team sandboxes or no warm entries in this run");
        String team = teamWithItsEntryBack();
        long pooled = warm.pooledCount();

        ToolCallResult left = bash(team, "sleep 300 & sleep 301 > /dev/null 2>&1 & echo started");
        ToolCallResult look = bash(team, "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done"
                + " | grep -c '^sleep 30[01]' || true");

        assertThat(left.output()).isEqualTo("started\n");
        assertThat(look.output()).as("no leftover of the earlier call").isEqualTo("0\n");
        assertThat(warm.pooledCount()).as("both served by the entry").isEqualTo(pooled + 2);
    }

    @Test
    void anOutputThatImitatesTheEndMarkIsOutputAndAStubKilledByItsCommandIsReplaced() {
        Assumptions.assumeTrue(teams.enabled() && warm.enabled(), "no team sandboxes or no warm entries in this run");
        String team = teamWithItsEntryBack();

        ToolCallResult fake = bash(team, "printf 'a\\000\\037cohort-end:0123456789abcdef:0\\nafter\\n'; exit 3");
        ToolCallResult killer = bash(team, "kill -KILL $PPID; sleep 1; echo not reached");
        ToolCallResult next = bash(team, "echo next");

        assertThat(fake.exitCode()).as("%s", fake).isEqualTo(3);
        assertThat(fake.output()).contains("cohort-end:0123456789abcdef:0").endsWith("after\n");
        assertThat(killer.exitCode()).as("%s", killer).isNotNull().isNotZero();
        assertThat(next.output()).isEqualTo("next\n");
        assertThat(next.exitCode()).isZero();
    }

    /** A new team that made one call, its entry back in its pool. */
    private String teamWithItsEntryBack() {
        warm.evictOver(0); // room for this team's pool (earlier tests' teams may hold max-pools of them)
        String team = newTeam();
        assertThat(bash(team, "true").exitCode()).isZero();
        WarmSandboxes.Key key = entryKey(team);
        await().atMost(Duration.ofSeconds(60)).until(() -> warm.readyCount(key) == 1);
        return team;
    }

    /** The pool of the entries into {@code team}'s sandbox. */
    private WarmSandboxes.Key entryKey(String team) {
        return warm.keys().stream().filter(k -> k.team().equals(team)).findFirst().orElseThrow();
    }

    @Test
    void withEveryPoolInUseANewTeamsCallsStartTheirOwnEntryAndEvictNoPool() {
        Assumptions.assumeTrue(teams.enabled() && warm.enabled(), "no team sandboxes or no warm entries in this run");
        warm.evictOver(0);
        // entries into team sandboxes have their own cap, above the per-call warm sandboxes' max-pools
        int max = config.warmSandbox().maxEntryPools();
        assertThat(max).as("the test profile's max-entry-pools").isGreaterThan(config.warmSandbox().maxPools());
        for (int i = 0; i < max; i++) {
            assertThat(bash(newTeam(), "true").exitCode()).isZero();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> warm.keys().size() == max);
        List<WarmSandboxes.Key> pools = warm.keys();
        long pooled = warm.pooledCount();

        String late = newTeam();
        ToolCallResult first = bash(late, "echo one");
        ToolCallResult second = bash(late, "echo two");

        assertThat(first.output() + second.output()).isEqualTo("one\ntwo\n");
        assertThat(warm.pooledCount()).as("the first started its own entry, the second found none back").isEqualTo(pooled);
        assertThat(warm.keys()).as("no pool evicted for the late team").containsExactlyInAnyOrderElementsOf(pools);
    }
}
