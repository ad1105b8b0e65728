package dev.cohort.toolrunner.api;

import static dev.cohort.toolrunner.Calls.args;
import static dev.cohort.toolrunner.Calls.bash;
import static dev.cohort.toolrunner.Calls.call;
import static dev.cohort.toolrunner.Calls.newTeam;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.Topics;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.devstack.quarkus.DevstackTestResource;
import dev.cohort.toolrunner.Calls;
import dev.cohort.toolrunner.persistence.ToolCallStore;
import dev.cohort.toolrunner.Processes;
import dev.cohort.toolrunner.TempWorkspaceResource;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.http.TestHTTPResourceManager;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * {@code bash} over HTTP, plus the request-level rules (token, malformed requests, idempotent call ids). This class
 * carries the module's test resources (global): one Quarkus boot, one broker, one database for every test class.
 */
@QuarkusTest
@QuarkusTestResource(value = DevstackTestResource.class, initArgs = @ResourceArg(name = "topics", value = Topics.ALL_CSV))
@QuarkusTestResource(TempWorkspaceResource.class)
class BashToolTest {
    private static final Pattern SECRET_NAME = Pattern.compile("(?i).*(KEY|TOKEN|SECRET|PASSWORD).*");

    @Inject
    ToolCallStore calls;
    @Inject
    MeterRegistry meters;
    @Inject
    DataSource dataSource;

    @Test
    void runsACommandInTheTeamWorkspaceAndReportsItsExitCode() {
        String team = newTeam();
        ToolCallResult r = bash(team, "pwd; echo out; echo err >&2; echo out2; exit 3");
        assertThat(r.output()).isEqualTo(Calls.workspace(team) + "\nout\nerr\nout2\n");
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(r.error()).isNull();
        assertThat(r.truncated()).isNull();
    }

    @Test
    void stdinIsClosedSoInteractiveCommandsDoNotHang() {
        ToolCallResult r = call("bash", newTeam(), args("command", "cat; read x; echo \"rc=$?\"", "timeout_ms", 5000));
        assertThat(r.output()).isEqualTo("rc=1\n");
        assertThat(r.error()).isNull();
    }

    @Test
    void theInternalStdinArgumentFeedsACommandAMegabyteAndKeepsStderrApartFromStdout() {
        String team = newTeam();
        String big = "x".repeat(1_000_000) + "\nend'\"$(not run)\n";
        ToolCallResult r = call("bash", team, args("command", "cat > got.txt; wc -c < got.txt; tail -n1 got.txt; echo reason >&2; exit 2", "stdin", big,
                "timeout_ms", 30_000));
        assertThat(r.exitCode()).isEqualTo(2);
        // every byte arrived, quotes and $(…) as plain text
        assertThat(r.output()).isEqualTo(big.getBytes(StandardCharsets.UTF_8).length + "\nend'\"$(not run)\n");
        assertThat(r.stderr()).isEqualTo("reason\n");
        // the stdin file the runner wrote is gone once the call ended
        try (var files = Files.walk(Calls.stateDir())) {
            assertThat(files.filter(f -> f.getFileName().toString().endsWith("_stdin.txt"))).isEmpty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aCommandWithStdinReadsAllOfItThenTheTimeoutStillKillsIt() {
        ToolCallResult r = call("bash", newTeam(), args("command", "cat > /dev/null; sleep 300", "stdin", "{}",
                "timeout_ms", 1000));
        assertThat(r.error()).contains("timed out after 1000 ms");
        assertThat(r.exitCode()).isNull();
    }

    @Test
    void stdinIsForegroundOnly() {
        ToolCallResult r = call("bash", newTeam(), args("command", "cat", "stdin", "x", "run_in_background", true));
        assertThat(r.error()).contains("stdin and run_in_background=true do not go together");
        // a command the slow-command heuristic would background still runs in the foreground with stdin
        ToolCallResult fg = call("bash", newTeam(), args("command", "cat || make", "stdin", "kept"));
        assertThat(fg.output()).isEqualTo("kept");
        assertThat(fg.stderr()).isEmpty();
    }

    @Test
    void aTimeoutKillsTheWholeProcessGroupLongBeforeItsCommandWouldEndAndLeavesNoChild() {
        String marker = "cohort-http-" + System.nanoTime();
        String team = newTeam();
        bash(team, "true"); // the team's workspace is created and git-initialised on first use: not part of the timing
        long t0 = System.nanoTime();
        ToolCallResult r = call("bash", team, args("command",
                "exec -a " + marker + " bash -c '(exec -a " + marker + "-bg sleep 300) & exec -a " + marker
                        + "-fg sleep 300'", "timeout_ms", 1000));
        // the command sleeps 300 s: an answer well before that means the timeout, not the command, ended it
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(120));
        assertThat(r.error()).contains("timed out after 1000 ms").contains("rule: timeout");
        assertThat(r.exitCode()).isNull();
        await().atMost(Duration.ofSeconds(60)).until(() -> !Processes.anyWith(marker));
    }

    @Test
    void backgroundedChildrenOfAFinishedCommandAreKilled() {
        String marker = "cohort-left-" + System.nanoTime();
        ToolCallResult r = bash(newTeam(), "(exec -a " + marker + " sleep 300) > /dev/null 2>&1 & echo started");
        assertThat(r.output()).isEqualTo("started\n");
        await().atMost(Duration.ofSeconds(60)).until(() -> !Processes.anyWith(marker));
    }

    @Test
    void hugeOutputIsCappedWithHeadAndTailAndTheWholeOutputIsReadableThroughOutputRef() {
        String team = newTeam();
        ToolCallResult r = call("bash", team, args("command", "yes | head -c 50000000; echo; echo THE-END"));
        assertThat(r.exitCode()).isZero();
        assertThat(r.truncated()).isTrue();
        assertThat(r.output()).startsWith("y\ny\ny\n").endsWith("y\n\nTHE-END\n")
                .contains("[… output truncated: 49950009 of 50000009 characters omitted");
        assertThat(r.output().length()).isLessThan(50_000 + 400);
        assertThat(r.outputRef()).startsWith("cohort-output://");
        // that the 50 MB went through a fixed-size buffer is proven on the capture itself (OutputCaptureTest)
        ToolCallResult tail = call("read_file", team, args("path", r.outputRef(), "offset", 25_000_000, "limit", 5));
        assertThat(tail.output()).isEqualTo("25000000\ty\n" + "25000001\t\n" + "25000002\tTHE-END\n");
    }

    @Test
    void envShowsNoVariableOfTheRunnersEnvironmentThatLooksLikeASecret() {
        String team = newTeam();
        ToolCallResult r = bash(team, "env");
        List<String> names = r.output().lines().filter(l -> l.contains("="))
                .map(l -> l.substring(0, l.indexOf('='))).toList();
        List<String> runnerSecrets = System.getenv().keySet().stream()
                .filter(n -> SECRET_NAME.matcher(n).matches()).toList();
        assertThat(names).noneMatch(n -> SECRET_NAME.matcher(n).matches());
        assertThat(runnerSecrets).allMatch(s -> !names.contains(s));
        assertThat(names).contains("PATH", "HOME");
        // HOME is the team's directory in the runner's state, never the workspace
        String home = r.output().lines().filter(l -> l.startsWith("HOME=")).findFirst().orElseThrow().substring(5);
        assertThat(Path.of(home)).startsWith(Calls.stateDir().toAbsolutePath());
        assertThat(Path.of(home).startsWith(Calls.root())).isFalse();
    }

    @Test
    void aDeniedCommandIsAModelVisibleErrorNamingTheRuleAndDoesNotRun() throws Exception {
        String team = newTeam();
        bash(team, "true");
        ToolCallResult r = bash(team, "touch should-not-exist; sudo id");
        assertThat(r.error()).contains("rule: privilege-escalation");
        assertThat(r.exitCode()).isNull();
        assertThat(Files.exists(Calls.workspace(team).resolve("should-not-exist"))).isFalse();
        ToolCallResult fp = bash(team, "ls nothing-here 2> /dev/null; echo pseudocode perform");
        assertThat(fp.error()).isNull();
        assertThat(fp.output()).isEqualTo("pseudocode perform\n");
    }

    @Test
    void hardDeniesOfTheSharedRuleSetAreRefusedOverHttpWhateverTheEngineSaidAndAsksRun() throws Exception {
        // the old engine only asked about these two: at the workspace root, '.' and '*' are the whole workspace
        String team = newTeam();
        bash(team, "touch keep.txt");
        Path ws = Calls.workspace(team);
        ToolCallResult dot = bash(team, "touch made-before; rm -rf .");
        assertThat(dot.error()).isEqualTo("command refused by the tool runner's safety policy: rm -r on '.' would hit"
                + " the file-system root, a top-level directory, a home directory, the workspace root or a path"
                + " outside the workspace (rule: recursive-delete-of-protected-path)");
        assertThat(dot.exitCode()).isNull();
        assertThat(bash(team, "rm -rf *").error()).endsWith("(rule: recursive-delete-of-protected-path)");
        assertThat(ws.resolve("keep.txt")).exists();
        assertThat(ws.resolve("made-before")).doesNotExist();
        // an ask (destructive-command) was the engine's to ask: the runner runs it
        ToolCallResult rm = bash(team, "rm keep.txt && echo removed");
        assertThat(rm.error()).isNull();
        assertThat(rm.output()).isEqualTo("removed\n");
        assertThat(ws.resolve("keep.txt")).doesNotExist();
    }

    @Test
    void badArgumentsAreModelVisibleErrors() {
        String team = newTeam();
        assertThat(call("bash", team, args()).error()).isEqualTo("missing required argument 'command' (rule: bad-argument)");
        assertThat(call("bash", team, args("command", "true", "cwd", "/")).error())
                .isEqualTo("unknown argument(s) [cwd]; this tool accepts [command, run_in_background, stdin, timeout_ms] (rule: bad-argument)");
        assertThat(call("bash", team, args("command", "true", "timeout_ms", 0)).error()).contains("timeout_ms must be between 1 and");
        assertThat(call("no_such_tool", team, args()).error()).contains("unknown tool 'no_such_tool'").contains("rule: unknown-tool");
    }

    @Test
    void aRepeatedCallIdReturnsTheStoredResultWithoutRunningTheToolTwice() throws Exception {
        String team = newTeam();
        Map<String, Object> a = args("command", "echo run >> counter.txt; wc -l < counter.txt");
        String first = Calls.raw("bash", team, "alice", "call-once-1", null, a).then().statusCode(200).extract().asString();
        String second = Calls.raw("bash", team, "alice", "call-once-1", null, a).then().statusCode(200).extract().asString();
        assertThat(Json.read(second, ToolCallResult.class)).isEqualTo(Json.read(first, ToolCallResult.class));
        assertThat(Files.readString(Calls.workspace(team).resolve("counter.txt"))).isEqualTo("run\n");
        assertThat(calls.count(team, "alice", "call-once-1")).isEqualTo(1);
        // the same id from another agent is another call
        Calls.raw("bash", team, "bob", "call-once-1", null, a).then().statusCode(200);
        assertThat(Files.readString(Calls.workspace(team).resolve("counter.txt"))).isEqualTo("run\nrun\n");
        // reusing an id for a different call is the host's bug
        Calls.raw("bash", team, "alice", "call-once-1", null, args("command", "echo other")).then().statusCode(409)
                .contentType("application/problem+json");
    }

    @Test
    void aResultTheDatabaseRefusesIsRetriedUntilStoredSoARepeatedCallIsAnsweredFromTheRecordAndRunsOnce()
            throws Exception {
        String team = newTeam();
        // the database refuses the first two result writes of this call (a trigger; the sequence is not rolled back)
        try (var c = dataSource.getConnection(); var st = c.createStatement()) {
            st.execute("CREATE SEQUENCE IF NOT EXISTS toolrunner.test_refused_results");
            st.execute("CREATE OR REPLACE FUNCTION toolrunner.test_refuse_result() RETURNS trigger AS $$ BEGIN"
                    + " IF NEW.call_id = 'refused-result-1' AND NEW.result IS NOT NULL"
                    + " AND nextval('toolrunner.test_refused_results') <= 2 THEN"
                    + " RAISE EXCEPTION 'injected: result write refused'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql");
            st.execute("DROP TRIGGER IF EXISTS test_refuse_result ON toolrunner.tool_calls");
            st.execute("CREATE TRIGGER test_refuse_result BEFORE UPDATE ON toolrunner.tool_calls"
                    + " FOR EACH ROW EXECUTE FUNCTION toolrunner.test_refuse_result()");
        }
        try {
            double retries = recordRetries();
            Map<String, Object> a = args("command", "echo run >> refused.txt; wc -l < refused.txt");
            String first = Calls.raw("bash", team, "alice", "refused-result-1", null, a).then().statusCode(200)
                    .extract().asString();
            await().atMost(Duration.ofSeconds(120)).until(() -> calls.find(team, "alice", "refused-result-1")
                    .map(r -> r.result() != null).orElse(false));
            assertThat(recordRetries() - retries).isEqualTo(2);
            assertThat(calls.find(team, "alice", "refused-result-1").orElseThrow().result())
                    .isEqualTo(Json.read(first, ToolCallResult.class));
            // the call again (a resumed host): answered from the record, not run again, not "already being executed"
            String again = Calls.raw("bash", team, "alice", "refused-result-1", null, a).then().statusCode(200)
                    .extract().asString();
            assertThat(Json.read(again, ToolCallResult.class)).isEqualTo(Json.read(first, ToolCallResult.class));
            assertThat(Files.readString(Calls.workspace(team).resolve("refused.txt"))).isEqualTo("run\n");
        } finally {
            try (var c = dataSource.getConnection(); var st = c.createStatement()) {
                st.execute("DROP TRIGGER IF EXISTS test_refuse_result ON toolrunner.tool_calls");
            }
        }
    }

    @Test
    void aCallRecordedAsRunningByAnotherReplicaIsAnsweredOutcomeUnknownAndNotRunHere() throws Exception {
        String team = newTeam();
        Map<String, Object> a = args("command", "echo run >> replica.txt");
        Calls.raw("bash", team, "alice", "other-replica-1", null, a).then().statusCode(200);
        await().atMost(Duration.ofSeconds(60)).until(() -> calls.find(team, "alice", "other-replica-1")
                .map(r -> r.result() != null).orElse(false));
        // as if another replica had claimed it and died (or still runs it): running, no result, its instance id
        try (var c = dataSource.getConnection(); var st = c.prepareStatement("UPDATE toolrunner.tool_calls SET status ="
                + " 'running', result = NULL, instance_id = 'tool-runner-9' WHERE team = ? AND call_id = 'other-replica-1'")) {
            st.setString(1, team);
            assertThat(st.executeUpdate()).isEqualTo(1);
        }
        String again = Calls.raw("bash", team, "alice", "other-replica-1", null, a).then().statusCode(200)
                .extract().asString();
        assertThat(Json.read(again, ToolCallResult.class)).isEqualTo(ToolCallResult.failure("this call was started on"
                + " tool runner replica tool-runner-9; its outcome is unknown here and it is not run again (rule:"
                + " at-most-once). Check the workspace before retrying with a new call.", 0));
        assertThat(Files.readString(Calls.workspace(team).resolve("replica.txt"))).isEqualTo("run\n");
    }

    private double recordRetries() {
        var c = meters.find("cohort.toolrunner.record.retries").counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void aReadIsRecordedOnceWithItsResultAndARepeatedReadIdReadsAgain() throws Exception {
        String team = newTeam();
        call("bash", team, args("command", "echo first > note.txt"));
        String first = Calls.raw("read_file", team, "alice", "read-once-1", null, args("path", "note.txt"))
                .then().statusCode(200).extract().asString();
        // recorded off the latency path, in one statement
        await().atMost(Duration.ofSeconds(60)).until(() -> calls.find(team, "alice", "read-once-1")
                .map(r -> r.result() != null).orElse(false));
        ToolCallStore.Recorded rec = calls.find(team, "alice", "read-once-1").orElseThrow();
        assertThat(rec.tool()).isEqualTo("read_file");
        assertThat(rec.status()).isEqualTo("done");
        assertThat(rec.result()).isEqualTo(Json.read(first, ToolCallResult.class));
        // reads change nothing, so they are not journaled before they run: a repeated read id reads the current
        // content again, and the record keeps the first result (one row per call id)
        Files.writeString(Calls.workspace(team).resolve("note.txt"), "second\n");
        double kept = alreadyRecordedReads();
        String again = Calls.raw("read_file", team, "alice", "read-once-1", null, args("path", "note.txt"))
                .then().statusCode(200).extract().asString();
        assertThat(Json.read(again, ToolCallResult.class).output()).contains("second");
        // the repeated read's record attempt has run (and found the first record) before the record is checked
        await().atMost(Duration.ofSeconds(60)).until(() -> alreadyRecordedReads() > kept);
        assertThat(calls.count(team, "alice", "read-once-1")).isEqualTo(1);
        assertThat(calls.find(team, "alice", "read-once-1").orElseThrow().result().output()).contains("first");
    }

    private double alreadyRecordedReads() {
        var c = meters.find("cohort.toolrunner.read.records").tag("outcome", "already-recorded").counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void callsWithoutTheBearerTokenAreRejectedWith401() {
        given().contentType(ContentType.JSON).body("{\"team\":\"default\",\"agent\":\"lead\",\"callId\":\"c1\",\"args\":{\"command\":\"true\"}}")
                .post("/internal/v1/tools/bash").then().statusCode(401).contentType("application/problem+json")
                .header("WWW-Authenticate", "Bearer");
        given().header("Authorization", "Bearer wrong").contentType(ContentType.JSON).body("{}")
                .get("/internal/v1/background/bg_x").then().statusCode(401);
        given().get(TestHTTPResourceManager.getManagementUri() + "/health/ready").then().statusCode(200);
    }

    @Test
    void malformedRequestsAreProblemJson400() {
        Calls.raw("bash", "Bad Team!", "lead", "c1", null, args("command", "true")).then().statusCode(400)
                .contentType("application/problem+json");
        Calls.raw("bash", newTeam(), "lead", "", null, args("command", "true")).then().statusCode(400);
        Calls.raw("bash", newTeam(), "lead", "c1", "/etc", args("command", "true")).then().statusCode(400);
        Calls.raw("bash", newTeam(), "lead", "c1", "../..", args("command", "true")).then().statusCode(400);
        given().header("Authorization", "Bearer " + TempWorkspaceResource.TOKEN).contentType(ContentType.JSON)
                .body("{not json").post("/internal/v1/tools/bash").then().statusCode(400)
                .contentType("application/problem+json");
    }

    @Test
    void aWorkspaceThatIsNotAGitRepositoryIsInitialisedWithAnInitialCommit() {
        String team = newTeam();
        ToolCallResult r = bash(team, "git rev-parse --show-toplevel && git log --format=%s");
        assertThat(r.output()).isEqualTo(Calls.workspace(team) + "\ncohort: initial commit (worktrees need one)\n");
    }

    @Test
    void anOutputWithNulCharactersIsRecordedWithEachOneReplaced() throws Exception {
        String team = newTeam();
        String first = Calls.raw("bash", team, "alice", "nul-output-1", null, args("command", "printf 'a\\0b'"))
                .then().statusCode(200).extract().asString();
        assertThat(Json.read(first, ToolCallResult.class).output()).isEqualTo("a\0b");
        // PostgreSQL text holds no NUL: the record keeps U+FFFD in its place instead of failing to store the result
        await().atMost(Duration.ofSeconds(30)).until(() -> calls.find(team, "alice", "nul-output-1")
                .map(r -> r.result() != null).orElse(false));
        assertThat(calls.find(team, "alice", "nul-output-1").orElseThrow().result().output()).isEqualTo("a\uFFFDb");
    }
}
