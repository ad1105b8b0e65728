package dev.cohort.toolrunner.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
        await().atMost(Duration.ofSeconds(60)).until(() -> !dev.cohort.toolrunner.Processes.anyWith(marker));
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
}
