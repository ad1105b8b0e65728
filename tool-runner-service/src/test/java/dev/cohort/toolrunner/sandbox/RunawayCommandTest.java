package dev.cohort.toolrunner.sandbox;

import static dev.cohort.toolrunner.Calls.args;
import static dev.cohort.toolrunner.Calls.bash;
import static dev.cohort.toolrunner.Calls.call;
import static dev.cohort.toolrunner.Calls.newTeam;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cohort.core.toolrunner.BackgroundJob;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.Calls;
import dev.cohort.toolrunner.calls.ToolService;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.process.ProcessRunner;
import dev.cohort.toolrunner.Processes;
import dev.cohort.toolrunner.TempWorkspaceResource;
import io.quarkus.test.common.http.TestHTTPResourceManager;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runaway commands over HTTP, as a model's command arrives: a never-ending output, a FIFO nobody writes, a fork bomb.
 * Each ends with a clear result, leaves no process behind and gives its execution slot back, and the team's next call
 * runs. The file tools never open a FIFO. Outcomes are waited for, never timed: the timeouts given are generous.
 */
@QuarkusTest
class RunawayCommandTest {
    private static final Duration WAIT = Duration.ofMinutes(2);

    @Inject
    ToolService service;
    @Inject
    CommandLimits limits;
    @Inject
    ToolRunnerConfig config;

    /** A call that must answer: a blocked tool would hang the test, so the answer is waited for, boundedly. */
    private static ToolCallResult answered(Supplier<ToolCallResult> call) throws Exception {
        return CompletableFuture.supplyAsync(call).get(5, TimeUnit.MINUTES);
    }

    /** The slot is back, nothing of the command is left, and the team's next call runs. */
    private void slotReleasedNothingLeftNextCallRuns(String team, String marker) {
        await().atMost(WAIT).until(() -> service.freeSlots() == config.maxConcurrentCalls());
        await().atMost(WAIT).until(() -> !Processes.anyWith(marker));
        ToolCallResult next = bash(team, "echo next");
        assertThat(next.output()).isEqualTo("next\n");
        assertThat(next.exitCode()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "exec -a MARK cat /dev/zero", // bytes without end, no newline
            "exec -a MARK yes", // lines without end
            "(exec -a MARK yes) | exec -a MARK-tr tr -d '\\n'", // one line without end
            "exec -a MARK bash -c 'while :; do printf %01000d 0; done'"}) // a shell loop, in chunks
    void aNeverEndingOutputIsStoppedAtTheOutputLimitWithANoteAndItsGroupKilled(String command) throws Exception {
        String team = newTeam();
        bash(team, "true");
        String marker = "cohort-runaway-" + UUID.randomUUID();
        long limit = limits.values().outputSize();
        ToolCallResult r = answered(() -> call("bash", team, args("command", command.replace("MARK", marker),
                "timeout_ms", 300_000)));

        assertThat(r.error()).as("%s", r.error()).contains("rule: output-limit").contains(limit + " characters")
                .doesNotContain("rule: timeout");
        assertThat(r.exitCode()).isNull();
        assertThat(r.truncated()).isTrue();
        assertThat(r.output()).contains("[… output truncated:").endsWith("killed the command's process group"
                + " (rule: output-limit) …]\n");
        assertThat(r.output().length()).isLessThan(config.bash().outputCap() + 1_000);
        // what was stored: the limit and the note, not a byte more
        Path stored = Calls.stateDir().resolve("teams").resolve(team).resolve("outputs")
                .resolve(r.outputRef().substring("cohort-output://".length()) + ".txt");
        assertThat(Files.size(stored)).isBetween(limit, limit * 3 + 1_000);
        assertThat(Files.readString(stored).substring((int) limit)).startsWith("\n\n[… output limit:");
        Files.delete(stored); // 64 MB per case: the test directories are kept for inspection
        slotReleasedNothingLeftNextCallRuns(team, marker);
    }

    @Test
    void aBackgroundJobWithANeverEndingOutputFailsAtTheOutputLimit() throws Exception {
        String team = newTeam();
        String marker = "cohort-runaway-bg-" + UUID.randomUUID();
        ToolCallResult r = call("bash", team, args("command", "exec -a " + marker + " yes", "run_in_background", true));
        Matcher m = Pattern.compile("(bg_[A-Za-z0-9]+)").matcher(r.output());
        assertThat(m.find()).as(r.output()).isTrue();
        String id = m.group(1);
        BackgroundJob[] job = new BackgroundJob[1];
        await().atMost(Duration.ofMinutes(5)).until(() -> {
            job[0] = given().header("Authorization", "Bearer " + TempWorkspaceResource.TOKEN)
                    .get("/internal/v1/background/" + id).then().statusCode(200).extract().as(BackgroundJob.class);
            return !job[0].status().equals("running");
        });
        assertThat(job[0].status()).isEqualTo("failed");
        assertThat(job[0].error()).contains("rule: output-limit");
        Path log = Calls.stateDir().resolve("teams").resolve(team).resolve("outputs").resolve(id + ".txt");
        assertThat(Files.size(log)).isGreaterThanOrEqualTo(limits.values().outputSize());
        Files.delete(log);
        await().atMost(WAIT).until(() -> !Processes.anyWith(marker));
    }

    @Test
    void aCommandReadingAFifoNobodyWritesEndsAtItsTimeoutAndGivesItsSlotBack() throws Exception {
        String team = newTeam();
        String marker = "cohort-fifo-" + UUID.randomUUID();
        ToolCallResult r = answered(() -> call("bash", team, args("command", "mkfifo p && exec -a " + marker + " cat p",
                "timeout_ms", 3_000)));
        assertThat(r.error()).contains("timed out after 3000 ms").contains("rule: timeout");
        assertThat(r.exitCode()).isNull();
        slotReleasedNothingLeftNextCallRuns(team, marker);
    }

    @Test
    void theFileToolsNeverOpenAFifoAndGrepAndGlobSkipOneInADirectory() throws Exception {
        String team = newTeam();
        assertThat(bash(team, "mkdir -p d && mkfifo d/pipe && echo 'needle here' > d/file.txt").exitCode()).isZero();

        ToolCallResult read = answered(() -> call("read_file", team, args("path", "d/pipe")));
        assertThat(read.error()).contains("rule: special-file");
        ToolCallResult grepFifo = answered(() -> call("grep", team, args("pattern", "needle", "path", "d/pipe")));
        assertThat(grepFifo.error()).contains("rule: special-file");

        ToolCallResult grep = answered(() -> call("grep", team, args("pattern", "needle", "path", "d")));
        assertThat(grep.error()).isNull();
        assertThat(grep.output()).contains("file.txt:1:needle here").doesNotContain("pipe");
        ToolCallResult glob = answered(() -> call("glob", team, args("pattern", "**", "path", "d")));
        assertThat(glob.error()).isNull();
        assertThat(glob.output()).contains("file.txt").doesNotContain("pipe");
        assertThat(service.freeSlots()).isEqualTo(config.maxConcurrentCalls());
    }

    /**
     * A real fork bomb (not the {@code :(){ :|:& };:} the command rules refuse): the process limit holds it, the
     * timeout ends it, and while it runs the machine never has more of its processes than the limit. (That it would
     * have more without the limit is shown with a bounded spawner in {@code CommandLimitsTest}: an unbounded bomb
     * without a limit would take every pid of the machine.)
     */
    @Test
    void aForkBombIsHeldAtTheProcessLimitAndTheNextCallRuns() throws Exception {
        Assumptions.assumeFalse(limits.processesEnforcement().startsWith("not enforced"),
                "the process limit is not enforced here: " + limits.processesEnforcement());
        long max = limits.values().processes();
        String team = newTeam();
        bash(team, "true");
        String marker = "cohort-bomb-" + UUID.randomUUID();
        CompletableFuture<ToolCallResult> bomb = CompletableFuture.supplyAsync(() -> call("bash", team, args("command",
                "exec -a " + marker + " bash -c 'f() { f & f; }; f'", "timeout_ms", 15_000)));
        long most = 0;
        while (!bomb.isDone()) {
            List<Long> pids = pids(marker);
            most = Math.max(most, pids.size());
            if (pids.size() > max) {
                // the limit does not hold: the bomb's process group is killed before it takes the machine's pids
                pids.stream().map(RunawayCommandTest::group).filter(g -> g > 1).distinct().forEach(ProcessRunner::killGroup);
                break;
            }
            Thread.sleep(5);
        }
        ToolCallResult r = bomb.get(5, TimeUnit.MINUTES);
        assertThat(r.error()).as("%s", r.error()).containsAnyOf("rule: timeout", "rule: output-limit");
        assertThat(most).as("processes of the bomb at once").isPositive().isLessThanOrEqualTo(max);
        slotReleasedNothingLeftNextCallRuns(team, marker);
    }

    /** The processes whose argv holds {@code marker}. */
    private static List<Long> pids(String marker) {
        File[] procs = new File("/proc").listFiles(f -> f.getName().chars().allMatch(Character::isDigit));
        List<Long> out = new ArrayList<>();
        for (File p : procs == null ? new File[0] : procs) {
            try {
                if (new String(Files.readAllBytes(p.toPath().resolve("cmdline"))).contains(marker)) {
                    out.add(Long.parseLong(p.getName()));
                }
            } catch (IOException e) {
                // ended meanwhile
            }
        }
        return out;
    }

    /** The process group of {@code pid} ({@code /proc/<pid>/stat}), 0 when it is gone. */
    private static long group(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[2]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    @Test
    void aCommandRunsUnderTheConfiguredLimitsAndCannotRaiseThem() {
        CommandLimits.Values v = limits.values();
        String probe = "ulimit -c; ulimit -Hn; ulimit -Hf; ulimit -Hd; ulimit -t; ulimit -Ht;"
                + " ulimit -Hn $(( $(ulimit -Hn) + 1 )) 2>/dev/null && echo raised || echo not-raised";
        String expected = "0\n" + v.openFiles() + "\n" + v.fileSize() / 1024 + "\n" + v.memory() / 1024 + "\n"
                + v.cpuSeconds() + "\n" + (v.cpuSeconds() + CommandLimits.CPU_GRACE_SECONDS) + "\nnot-raised\n";
        String team = newTeam();
        ToolCallResult warmOrCold = bash(team, probe);
        assertThat(warmOrCold.output()).isEqualTo(expected);
        // a second call (a warm sandbox by then, where enabled) and a cold one with stdin: the same
        assertThat(bash(team, probe).output()).isEqualTo(expected);
        assertThat(call("bash", team, args("command", probe, "stdin", "")).output()).isEqualTo(expected);
    }

    @Test
    void readinessShowsHowCommandsAreLimited() {
        JsonPath health = given().get(TestHTTPResourceManager.getManagementUri() + "/health/ready").then()
                .statusCode(200).extract().jsonPath();
        Map<String, Object> data = health.getMap("checks.find { it.name == 'sandbox' }.data");
        assertThat((String) data.get("limits")).endsWith("rlimits").isEqualTo(limits.mechanism());
        assertThat((String) data.get("processes-limit")).isEqualTo(limits.processesEnforcement());
    }
}
