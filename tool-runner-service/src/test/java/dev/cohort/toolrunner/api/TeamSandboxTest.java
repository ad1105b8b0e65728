package dev.cohort.toolrunner.api;

import static dev.cohort.toolrunner.Calls.args;
import static dev.cohort.toolrunner.Calls.bash;
import static dev.cohort.toolrunner.Calls.call;
import static dev.cohort.toolrunner.Calls.newTeam;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.Calls;
import dev.cohort.toolrunner.sandbox.TeamSandboxes;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A team's commands run in its sandbox, started on the team's first command and kept: real {@code bash} calls over
 * HTTP, the holder's real process killed with a real signal.
 */
@QuarkusTest
class TeamSandboxTest {
    @Inject
    TeamSandboxes sandboxes;

    @BeforeEach
    void teamSandboxesInForce() {
        Assumptions.assumeTrue(sandboxes.enabled(), "commands run without a sandbox in this run (COHORT_SANDBOX=none)");
    }

    @Test
    void aTeamsCallsRunInOneSandboxStartedByItsFirstCall() {
        String team = newTeam();
        assertThat(sandboxes.holderPids(team)).isEmpty();
        assertThat(bash(team, "echo kept > /tmp/note; echo $$").exitCode()).isZero();
        List<Long> holders = sandboxes.holderPids(team);
        assertThat(holders).hasSize(1);
        ToolCallResult second = bash(team, "cat /tmp/note");
        assertThat(second.output()).as("%s", second).isEqualTo("kept\n");
        assertThat(sandboxes.holderPids(team)).isEqualTo(holders);
        // another team has a sandbox of its own, with its own /tmp
        String other = newTeam();
        assertThat(bash(other, "cat /tmp/note 2>&1; true").output()).contains("No such file");
        assertThat(sandboxes.holderPids(other)).doesNotContainAnyElementsOf(holders);
    }

    @Test
    void whatACallLeavesBehindIsKilledWhenItEnds() {
        String team = newTeam();
        // (the probes' patterns do not match their own command lines)
        // a daemon outside the call's process group: re-parented to the sandbox's init when its parent exits
        ToolCallResult r = bash(team, "setsid sleep 7777 </dev/null >/dev/null 2>&1 & echo started");
        assertThat(r.output()).as("%s", r).isEqualTo("started\n");
        Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                bash(team, "cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' | grep -c 'sleep 77[7]7'; true")
                        .output().strip()).isEqualTo("0"));
        assertThat(ProcessHandle.allProcesses().filter(h -> h.info().commandLine().orElse("").contains("sleep 7777")))
                .isEmpty();
    }

    @Test
    void aSandboxKilledMidCallFailsThatCallOnceAndTheNextCallGetsANewOne() throws Exception {
        String team = newTeam();
        assertThat(bash(team, "echo before > kept.txt").exitCode()).isZero();
        long holder = sandboxes.holderPids(team).get(0);
        Path started = Calls.workspace(team).resolve("started");
        CompletableFuture<ToolCallResult> call = CompletableFuture.supplyAsync(
                () -> bash(team, "touch started; echo ran >> runs.txt; sleep 60; echo finished"));
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(started));
        ProcessHandle.of(holder).orElseThrow().destroyForcibly();
        ToolCallResult failed = call.get();
        assertThat(failed.error()).as("%s", failed).contains("rule: sandbox-stopped");
        assertThat(String.valueOf(failed.output())).doesNotContain("finished");
        ToolCallResult next = bash(team, "cat kept.txt runs.txt");
        assertThat(next.output()).as("ran once, the workspace kept: %s", next).isEqualTo("before\nran\n");
        assertThat(sandboxes.holderPids(team)).hasSize(1).doesNotContain(holder);
    }

    @Test
    void aStoppedSandboxStartsAgainOnTheNextCallWithItsWorkspace() {
        String team = newTeam();
        assertThat(bash(team, "echo x > file.txt").exitCode()).isZero();
        long holder = sandboxes.holderPids(team).get(0);
        assertThat(sandboxes.stopIdle(team)).isEqualTo(1);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ProcessHandle.of(holder).isEmpty()
                || !ProcessHandle.of(holder).get().isAlive());
        assertThat(bash(team, "cat file.txt").output()).isEqualTo("x\n");
        assertThat(sandboxes.holderPids(team)).hasSize(1).doesNotContain(holder);
    }

    @Test
    void aSandboxWithABackgroundJobIsNotStoppedAsIdle() {
        String team = newTeam();
        ToolCallResult job = call("bash", team, args("command", "until [ -e release ]; do sleep 0.05; done",
                "run_in_background", true));
        assertThat(job.output()).startsWith("Started background job");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !sandboxes.holderPids(team).isEmpty());
        assertThat(sandboxes.stopIdle(team)).isZero();
        assertThat(bash(team, "touch release").exitCode()).isZero();
    }

    @Test
    void fromInsideNoSecretNoServiceTokenNoOtherTeamsProcessesNoWriteOutside() throws Exception {
        String first = newTeam();
        ToolCallResult job = call("bash", first, args("command", "sleep 300", "run_in_background", true));
        assertThat(job.output()).startsWith("Started background job");
        String second = newTeam();
        ToolCallResult environ = bash(second, "for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f; done 2>/dev/null"
                + " | grep -ciE 'password|token|secret|jdbc|kafka|quarkus' ; true");
        assertThat(environ.output().strip()).as("%s", environ).isEqualTo("0");
        ToolCallResult processes = bash(second, "cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' | grep -c 'sleep 30[0]'; true");
        assertThat(processes.output().strip()).as("the first team's job is not visible").isEqualTo("0");
        ToolCallResult writes = bash(second, "touch /etc/cohort-probe 2>&1; touch " + Calls.stateDir().toRealPath()
                + "/cohort-probe 2>&1; touch " + Calls.workspace(first).toRealPath() + "/cohort-probe 2>&1; true");
        assertThat(Files.exists(Path.of("/etc/cohort-probe"))).isFalse();
        assertThat(Files.exists(Calls.stateDir().resolve("cohort-probe"))).isFalse();
        assertThat(Files.exists(Calls.workspace(first).resolve("cohort-probe"))).isFalse();
        ToolCallResult caps = bash(second, "grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status");
        assertThat(caps.output()).as("no capability").contains("CapEff:\t0000000000000000")
                .contains("CapPrm:\t0000000000000000");
        call("bash", first, args("command", "pkill -f 'sleep 300'; true"));
    }
}
