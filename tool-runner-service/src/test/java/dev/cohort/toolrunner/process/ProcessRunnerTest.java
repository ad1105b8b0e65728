package dev.cohort.toolrunner.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cohort.toolrunner.Processes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/** Process handling without Quarkus: process-group kill, output order, scrubbed environment (sandbox: {@link SandboxTest}). */
class ProcessRunnerTest {
    @TempDir
    Path dir;

    private ProcessRunner.Outcome run(String command, Duration timeout, OutputCapture c, Map<String, String> env,
            List<String> prefix) throws Exception {
        return ProcessRunner.run(new ProcessRunner.Spec("/bin/bash", command, dir, env, timeout, prefix), c, null);
    }

    private static Map<String, String> plainEnv() {
        return Map.of("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"), "HOME", "/nonexistent");
    }

    @Test
    void timeoutKillsTheWholeProcessGroupAndLeavesNoChild() throws Exception {
        String marker = "cohort-unit-" + System.nanoTime();
        OutputCapture c = new OutputCapture(1000, dir.resolve("o"), false);
        long t0 = System.nanoTime();
        ProcessRunner.Outcome o = run("exec -a " + marker + " bash -c 'sleep 300 & sleep 300'", Duration.ofSeconds(1),
                c, plainEnv(), List.of());
        // the command sleeps 300 s: an answer well before that means the timeout, not the command, ended it
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(120));
        assertThat(o.timedOut()).isTrue();
        assertThat(o.exitCode()).isNull();
        // /proc cmdline, not ProcessHandle's commandLine(), which shows the executable's path instead of an exec -a name
        await().atMost(Duration.ofSeconds(60)).until(() -> !Processes.anyWith(marker));
    }

    @Test
    void stdoutAndStderrArriveInOrderAndTheExitCodeIsReported() throws Exception {
        OutputCapture c = new OutputCapture(1000, dir.resolve("o"), false);
        ProcessRunner.Outcome o = run("echo one; echo two >&2; echo three; exit 7", Duration.ofSeconds(10), c,
                plainEnv(), List.of());
        assertThat(c.text("r")).isEqualTo("one\ntwo\nthree\n");
        assertThat(o.exitCode()).isEqualTo(7);
    }

    @Test
    void childEnvironmentDropsEverySecretLookingVariableEvenWhenAllowlisted() throws Exception {
        Map<String, String> parent = new HashMap<>();
        parent.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        parent.put("LANG", "C.UTF-8");
        parent.put("OPENAI_API_KEY", "sk-secret");
        parent.put("COHORT_TOOL_RUNNER_TOKEN", "tok");
        parent.put("DB_PASSWORD", "pw");
        parent.put("AWS_SECRET_ACCESS_KEY", "aws");
        parent.put("GITHUB_TOKEN", "gh");
        parent.put("UNLISTED", "x");
        Map<String, String> env = EnvironmentPolicy.childEnvironment(parent,
                List.of("PATH", "LANG", "OPENAI_API_KEY", "DB_PASSWORD", "GITHUB_TOKEN"),
                Pattern.compile("(?i).*(KEY|TOKEN|SECRET|PASSWORD).*"), dir.resolve("home"), "t1", "alice");
        OutputCapture c = new OutputCapture(100_000, dir.resolve("o"), false);
        run("env", Duration.ofSeconds(10), c, env, List.of());
        List<String> names = c.text("r").lines().map(l -> l.substring(0, Math.max(0, l.indexOf('=')))).toList();
        assertThat(names).noneMatch(n -> n.matches("(?i).*(KEY|TOKEN|SECRET|PASSWORD).*"))
                .doesNotContain("UNLISTED").contains("PATH", "LANG", "HOME");
        assertThat(c.text("r")).contains("HOME=" + dir.resolve("home")).doesNotContain("sk-secret", "tok", "pw", "aws");
    }

    @Test
    void leftoversOfAFinishedCommandAreKilledAfterTheAnswerWithoutASandbox() throws Exception {
        String marker = "cohort-left-" + System.nanoTime();
        OutputCapture c = new OutputCapture(1000, dir.resolve("o"), false);
        // the leftover does not hold the output pipe, so the answer comes at the shell's exit and the kill follows it
        ProcessRunner.Outcome o = run("(exec -a " + marker + " sleep 300) > /dev/null 2>&1 & echo started",
                Duration.ofSeconds(60), c, plainEnv(), List.of());
        assertThat(o.exitCode()).isZero();
        assertThat(c.text("r")).isEqualTo("started\n");
        await().atMost(Duration.ofSeconds(60)).until(() -> !Processes.anyWith(marker));
    }

    @Test
    void aBackgroundChildThatKeepsWritingAfterTheShellExitedIsKilledAndTheOutputStaysCapped() throws Exception {
        String marker = "cohort-writer-" + System.nanoTime();
        OutputCapture c = new OutputCapture(1000, dir.resolve("o"), false);
        // it holds the output pipe and writes without end: the call must still end (group kill after the drain
        // wait), keep what the shell printed, stay within the cap, and leave nothing running
        ProcessRunner.Outcome o = run("(exec -a " + marker + " bash -c 'while :; do echo xxxxxxxxxxxxxxxxxxxx; done') &"
                + " echo started", Duration.ofSeconds(60), c, plainEnv(), List.of());
        assertThat(o.exitCode()).isZero();
        assertThat(o.timedOut()).isFalse();
        assertThat(c.text("r")).contains("started\n");
        assertThat(c.text("r").length()).isLessThan(1000 + 400);
        await().atMost(Duration.ofSeconds(60)).until(() -> !Processes.anyWith(marker));
    }

    @Test
    void killingLeftoversEmptiesAGroupThatKeepsForkingWithoutKillingAnythingElse() throws Exception {
        String marker = "cohort-forker-" + System.nanoTime();
        String bystander = "cohort-bystander-" + System.nanoTime();
        Process outside = new ProcessBuilder("bash", "-c", "exec -a " + bystander + " sleep 300").start();
        // a group whose leader forks a new member every 10 ms while the scan runs
        Process leader = new ProcessBuilder("setsid", "bash", "-c",
                "for i in $(seq 3000); do (exec -a " + marker + " sleep 300) & sleep 0.01; done")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true).start();
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> Processes.anyWith(marker));
            assertThat(ProcessRunner.hasGroupMembers(leader.pid())).isTrue();

            assertThat(ProcessRunner.killLeftovers(leader.pid())).isPositive();

            await().atMost(Duration.ofSeconds(60)).until(() -> !ProcessRunner.hasGroupMembers(leader.pid())
                    && !Processes.anyWith(marker));
            assertThat(ProcessRunner.killLeftovers(leader.pid())).as("nothing left to signal").isZero();
            assertThat(outside.isAlive()).as("a process outside the group is untouched").isTrue();
        } finally {
            leader.destroyForcibly();
            outside.destroyForcibly();
        }
    }

    @Test
    void aPidWindowHoldsThePidsHandedOutInItAcrossOneWrapOfTheCounter() {
        ProcessRunner.PidWindow plain = new ProcessRunner.PidWindow(1000, 1200);
        assertThat(List.of(999L, 1000L, 1100L, 1200L, 1201L).stream().map(p -> plain.contains(p, 5000)).toList())
                .containsExactly(false, true, true, true, false);
        // open-ended: up to the last pid handed out when looked at, here after a wrap from 32768 to 300
        ProcessRunner.PidWindow sinceCommand = new ProcessRunner.PidWindow(32000, 0);
        assertThat(List.of(31999L, 32000L, 32768L, 300L, 450L, 451L, 20000L).stream()
                .map(p -> sinceCommand.contains(p, 450)).toList())
                .containsExactly(false, true, true, true, true, false, false);
        assertThat(sinceCommand.contains(32100, 32200)).isTrue();
        assertThat(sinceCommand.contains(32300, 32200)).isFalse();
        assertThat(plain.size(5000, 32768)).isEqualTo(201);
        assertThat(sinceCommand.size(32200, 32768)).isEqualTo(201);
        List<Long> each = new ArrayList<>();
        sinceCommand.forEach(32003, 32768, each::add);
        assertThat(each).containsExactly(32000L, 32001L, 32002L, 32003L);
        // across the wrap: 32766, 32767, then from 1 (pid_max 32768 is never handed out)
        ProcessRunner.PidWindow wrapped = new ProcessRunner.PidWindow(32766, 0);
        assertThat(wrapped.size(2, 32768)).isEqualTo(4);
        List<Long> across = new ArrayList<>();
        wrapped.forEach(2, 32768, across::add);
        assertThat(across).containsExactly(32766L, 32767L, 1L, 2L);
    }
}
