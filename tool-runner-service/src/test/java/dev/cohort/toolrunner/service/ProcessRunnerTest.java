package dev.cohort.toolrunner.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Process handling without Quarkus: process-group kill, scrubbed environment, bubblewrap (when installed). */
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
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
        assertThat(o.timedOut()).isTrue();
        assertThat(o.exitCode()).isNull();
        await().atMost(Duration.ofSeconds(3)).until(() -> ProcessHandle.allProcesses()
                .noneMatch(p -> p.info().commandLine().orElse("").contains(marker)));
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

    private static boolean bwrapWorks() {
        try {
            Process p = new ProcessBuilder("bwrap", "--ro-bind", "/", "/", "--unshare-net", "true").start();
            return p.waitFor() == 0;
        } catch (Exception e) {
            return false;
        }
    }

    @Test
    void bubblewrapAllowsWritingTheWorkspaceOnlyAndHasNoNetwork() throws Exception {
        Assumptions.assumeTrue(bwrapWorks(), "bubblewrap (bwrap) is not installed or cannot create namespaces");
        Path ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
        Path state = Files.createDirectories(dir.resolve("state")).toRealPath();
        Path home = Files.createDirectories(state.resolve("home"));
        Files.writeString(state.resolve("secret.txt"), "runner state");
        Path outsideProbe = Path.of("/var/tmp/cohort-probe-" + System.nanoTime());
        List<String> prefix = Sandbox.bubblewrap("bwrap", state, List.of(), List.of(ws, home), ws);
        Map<String, String> env = Map.of("PATH", "/usr/bin:/bin", "HOME", home.toString());
        OutputCapture c = new OutputCapture(10_000, dir.resolve("o"), false);
        ProcessRunner.Outcome o = ProcessRunner.run(new ProcessRunner.Spec("/bin/bash",
                "echo inside > ok.txt && cat ok.txt;"
                        + " (echo x > /usr/cohort-probe) 2>/dev/null && echo SYSTEM-WRITABLE;"
                        + " (echo x > " + outsideProbe + ") 2>/dev/null && echo OUTSIDE-WRITABLE;"
                        + " cat " + state.resolve("secret.txt") + " 2>/dev/null && echo STATE-VISIBLE;"
                        + " (exec 3<>/dev/tcp/127.0.0.1/22) 2>/dev/null && echo NETWORK;"
                        + " ip -o link 2>/dev/null | grep -v ' lo:' | grep -q . && echo INTERFACES; echo done",
                ws, env, Duration.ofSeconds(20), prefix), c, null);
        assertThat(o.exitCode()).isZero();
        assertThat(c.text("r")).isEqualTo("inside\ndone\n");
        assertThat(ws.resolve("ok.txt")).hasContent("inside");
        assertThat(outsideProbe).doesNotExist();
    }

    @Test
    void bubblewrapTimeoutStillKillsEverythingInside() throws Exception {
        Assumptions.assumeTrue(bwrapWorks(), "bubblewrap (bwrap) is not installed or cannot create namespaces");
        Path ws = Files.createDirectories(dir.resolve("ws2")).toRealPath();
        String marker = "cohort-bwrap-" + System.nanoTime();
        List<String> prefix = Sandbox.bubblewrap("bwrap", Files.createDirectories(dir.resolve("st")), List.of(),
                List.of(ws), ws);
        long t0 = System.nanoTime();
        ProcessRunner.Outcome o = ProcessRunner.run(new ProcessRunner.Spec("/bin/bash",
                "exec -a " + marker + " bash -c 'sleep 300 & sleep 300'", ws, plainEnv(), Duration.ofSeconds(1), prefix),
                new OutputCapture(100, dir.resolve("o2"), false), null);
        assertThat(o.timedOut()).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
        await().atMost(Duration.ofSeconds(3)).until(() -> ProcessHandle.allProcesses()
                .noneMatch(p -> p.info().commandLine().orElse("").contains(marker)));
    }
}
