package dev.cohort.core.engine;

import static dev.cohort.core.engine.EngineHarness.messages;
import static dev.cohort.core.engine.EngineHarness.toolResults;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.engine.hooks.CommandHook;
import dev.cohort.core.engine.hooks.Hook;
import dev.cohort.core.engine.hooks.PostToolUseHook;
import dev.cohort.core.engine.hooks.PreToolUseHook;
import dev.cohort.core.engine.hooks.StopHook;
import dev.cohort.core.engine.hooks.UserPromptSubmitHook;
import dev.cohort.core.engine.permission.PermissionMode;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.devstack.model.ScriptedModelServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** s03 (permission) and s04 (hooks) "try these prompts". */
class PermissionAndHookScenariosTest {
    static ScriptedModelServer model;
    @TempDir
    Path dir;
    LocalWorkspace ws;

    @BeforeAll
    static void start() {
        model = ScriptedModelServer.start(0);
    }

    @AfterAll
    static void stop() {
        model.close();
    }

    @BeforeEach
    void reset() {
        model.reset();
        ws = new LocalWorkspace(dir);
    }

    private AgentSession lead(EngineHarness.Approvals approvals, List<Hook> hooks, AgentContext ctx) {
        AgentEngine engine = EngineHarness.engine(EngineHarness.modelClient(model), new EngineHarness.Events(), hooks)
                .approvals(approvals).build();
        return engine.open(ctx, null);
    }

    private AgentContext ctx() {
        return AgentContext.of("default", "lead", AgentRole.LEAD, ws);
    }

    private void oneCallThenEcho(String tool, String argsJson) {
        model.load("""
                {"rules":[
                 {"match":{"hasToolResult":false},"reply":{"toolCalls":[{"id":"c1","name":"%s","arguments":%s}]}},
                 {"match":{"lastRole":"tool"},"reply":{"text":"result: {{lastMessage}}"}}]}""".formatted(tool, argsJson));
    }

    @Test
    void s03CreatingAFileInTheWorkspacePassesWithoutAsking() {
        oneCallThenEcho("write_file", "{\"path\":\"test.txt\",\"content\":\"\"}");
        EngineHarness.Approvals approvals = new EngineHarness.Approvals(false);

        lead(approvals, List.of(), ctx()).run("Create test.txt in the current directory");

        assertThat(dir.resolve("test.txt")).exists();
        assertThat(approvals.asked).isEmpty();
    }

    @Test
    void s03ADestructiveRmAsksAndTheDenialReachesTheModel() throws Exception {
        Files.createDirectories(dir.resolve("tmp"));
        Files.writeString(dir.resolve("tmp/a.tmp"), "x");
        oneCallThenEcho("bash", "{\"command\":\"rm tmp/*.tmp\"}");
        EngineHarness.Approvals approvals = new EngineHarness.Approvals(false);

        TurnResult r = lead(approvals, List.of(), ctx()).run("Delete all temp files under tmp");

        assertThat(approvals.asked).singleElement().satisfies(a -> {
            assertThat(a.tool()).isEqualTo("bash");
            assertThat(a.reason()).isEqualTo("destructive command 'rm'");
            assertThat(a.agent()).isEqualTo("lead");
        });
        assertThat(toolResults(model.requests().get(1))).containsExactly("Error: permission denied: destructive "
                + "command 'rm' needed approval and it was refused (the user said no)");
        assertThat(dir.resolve("tmp/a.tmp")).exists();
        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
    }

    @Test
    void s03AnApprovedDestructiveCommandRuns() throws Exception {
        Files.writeString(dir.resolve("temp.log"), "x");
        oneCallThenEcho("bash", "{\"command\":\"rm temp.log\"}");

        lead(new EngineHarness.Approvals(true), List.of(), ctx()).run("delete temp.log");

        assertThat(dir.resolve("temp.log")).doesNotExist();
    }

    @Test
    void s03ReadOnlyCommandsNeverAsk() {
        oneCallThenEcho("bash", "{\"command\":\"ls -la 2> /dev/null\"}");
        EngineHarness.Approvals approvals = new EngineHarness.Approvals(false);

        lead(approvals, List.of(), ctx()).run("What files are in the current directory?");

        assertThat(approvals.asked).isEmpty();
        assertThat(toolResults(model.requests().get(1)).get(0)).doesNotStartWith("Error");
    }

    @Test
    void s03AWriteOutsideTheWorkspaceAsks() {
        oneCallThenEcho("write_file", "{\"path\":\"/c/hello.txt\",\"content\":\"\"}");
        EngineHarness.Approvals approvals = new EngineHarness.Approvals(false);

        lead(approvals, List.of(), ctx()).run("write an empty hello.txt into /c/");

        assertThat(approvals.asked).singleElement().extracting(ApprovalGateway.Request::reason)
                .isEqualTo("a write outside the workspace (/c/hello.txt)");
    }

    @Test
    void aHardDeniedCommandIsNeverAskedAndTheResultNamesTheRule() {
        oneCallThenEcho("bash", "{\"command\":\"SUDO=1 sudo rm -rf build\"}");
        EngineHarness.Approvals approvals = new EngineHarness.Approvals(true);

        lead(approvals, List.of(), ctx().withMode(PermissionMode.BYPASS)).run("clean up");

        assertThat(approvals.asked).isEmpty();
        assertThat(toolResults(model.requests().get(1))).containsExactly(
                "Error: permission denied by rule 'privilege-escalation': 'sudo' is never allowed: tools run without"
                        + " privilege escalation (a hard deny: no permission mode or approval lifts it)");
    }

    @Test
    void inAnUnattendedTurnAnAskIsDeniedWithoutWaiting() {
        oneCallThenEcho("bash", "{\"command\":\"rm -r build\"}");
        EngineHarness.Approvals approvals = new EngineHarness.Approvals(true);

        lead(approvals, List.of(), ctx()).run("nightly cleanup", "cron", true);

        assertThat(approvals.asked).isEmpty();
        assertThat(toolResults(model.requests().get(1)).get(0)).startsWith("Error: permission denied by rule "
                + "'destructive-command'").contains("nobody can approve it in an unattended (scheduled) turn");
    }

    @Test
    void s04HooksRewriteThePromptBlockReplaceAndForceAContinuationAtMostThreeTimes() {
        model.load("""
                {"rules":[
                 {"match":{"hasToolResult":false},"reply":{"toolCalls":[
                   {"id":"r1","name":"read_file","arguments":{"path":"README.md"}},
                   {"id":"b1","name":"bash","arguments":{"command":"echo hi"}}]}},
                 {"reply":{"text":"done"}}]}""");
        List<String> log = new ArrayList<>();
        int[] stops = {0};
        List<Hook> hooks = List.of(
                (UserPromptSubmitHook) (p, c) -> "<workspace>ws</workspace>\n\n" + p,
                (PreToolUseHook) (call, c) -> {
                    log.add("pre " + call.name());
                    return call.name().equals("bash") ? Optional.of("bash is switched off by policy hook") : Optional.empty();
                },
                (PostToolUseHook) (call, result, c) -> Optional.of(new ToolResult("[post] " + result.content(),
                        result.error(), result.rule())),
                (StopHook) (conv, c) -> {
                    stops[0]++;
                    return Optional.of("please double-check");
                });

        TurnResult r = lead(new EngineHarness.Approvals(false), hooks, ctx()).run("Read README.md");

        assertThat(messages(model.requests().get(0)).get(1).path("content").asText())
                .isEqualTo("<workspace>ws</workspace>\n\nRead README.md");
        assertThat(log).containsExactly("pre read_file", "pre bash");
        assertThat(toolResults(model.requests().get(1))).containsExactly(
                "[post] Error: file not found: README.md",
                "Error: bash is switched off by policy hook");
        assertThat(stops[0]).isEqualTo(3);
        assertThat(model.requests()).hasSize(5);
        assertThat(EngineHarness.lastContent(model.requests().get(4))).isEqualTo("please double-check");
        assertThat(r.text()).isEqualTo("done");
    }

    @Test
    void aThrowingPreToolUseHookBlocksTheCall() {
        oneCallThenEcho("write_file", "{\"path\":\"x.txt\",\"content\":\"x\"}");
        List<Hook> hooks = List.of((PreToolUseHook) (call, c) -> {
            throw new IllegalStateException("audit store down");
        });

        lead(new EngineHarness.Approvals(false), hooks, ctx()).run("write x");

        assertThat(dir.resolve("x.txt")).doesNotExist();
        assertThat(toolResults(model.requests().get(1)).get(0)).startsWith("Error: blocked: the check")
                .contains("audit store down");
    }

    @Test
    void aCommandHookExitingTwoBlocksWithItsOutputAsTheReason() {
        oneCallThenEcho("write_file", "{\"path\":\"secrets.env\",\"content\":\"x\"}");
        AgentContext c = ctx().withCommandHooks(List.of(CommandHook.of(CommandHook.Event.PRE_TOOL_USE, "write_file|edit_file",
                "grep -q '\"path\":\"secrets' && { echo 'no writes to secrets files' >&2; exit 2; } || exit 0")));

        lead(new EngineHarness.Approvals(false), List.of(), c).run("write secrets");

        assertThat(dir.resolve("secrets.env")).doesNotExist();
        assertThat(toolResults(model.requests().get(1)).get(0)).contains("no writes to secrets files");
    }
}
