package dev.cohort.core.engine;

import static dev.cohort.core.engine.EngineHarness.messages;
import static dev.cohort.core.engine.EngineHarness.toolResults;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.engine.hooks.CommandHook;
import dev.cohort.core.engine.hooks.Hook;
import dev.cohort.core.engine.hooks.HookSettings;
import dev.cohort.core.engine.hooks.PostToolUseHook;
import dev.cohort.core.engine.hooks.PreToolUseHook;
import dev.cohort.core.engine.hooks.StopHook;
import dev.cohort.core.engine.hooks.UserPromptSubmitHook;
import dev.cohort.core.engine.permission.PermissionMode;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.testing.ScriptedModelTestBase;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/** The seed's permission and hooks "try these prompts". */
class PermissionAndHookScenariosTest extends ScriptedModelTestBase {
    @TempDir
    Path dir;
    LocalWorkspace ws;

    @BeforeEach
    void reset() {
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
    void inPlanModeEveryWorkspaceCallAsksTheToolRunnerToEnforceReadOnlyAndOtherwiseNone() {
        ws = new LocalWorkspace(dir, false); // both sessions' scripts use call id c1
        oneCallThenEcho("bash", "{\"command\":\"ls\"}");
        lead(new EngineHarness.Approvals(false), List.of(), ctx().withMode(PermissionMode.PLAN)).run("look around");
        oneCallThenEcho("bash", "{\"command\":\"ls\"}");
        lead(new EngineHarness.Approvals(false), List.of(), ctx()).run("look around");

        List<Boolean> bash = new ArrayList<>();
        for (int i = 0; i < ws.executed.size(); i++) {
            if (ws.executed.get(i).startsWith("bash:")) {
                bash.add(ws.targets.get(i).readOnly());
            }
        }
        assertThat(bash).containsExactly(true, false);
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

    private AgentSession leadWithEvents(EngineHarness.Events events, List<Hook> hooks, AgentContext ctx, boolean workspaceFile) {
        AgentEngine.Builder b = EngineHarness.engine(EngineHarness.modelClient(model), events, hooks)
                .approvals(new EngineHarness.Approvals(false));
        if (workspaceFile) {
            b.workspaceHookSettings(HookSettings.WORKSPACE_FILE);
        }
        return b.build().open(ctx, null);
    }

    private static List<JsonNode> errors(EngineHarness.Events events) {
        return events.all.stream().filter(e -> e.type() == EventType.ERROR).map(e -> e.data())
                .toList();
    }

    @Test
    void aPreToolUseCommandHookThatCrashesBlocksTheCallAndIsReportedAsAnErrorEvent() {
        oneCallThenEcho("write_file", "{\"path\":\"x.txt\",\"content\":\"x\"}");
        EngineHarness.Events events = new EngineHarness.Events();
        AgentContext c = ctx().withCommandHooks(List.of(CommandHook.of(CommandHook.Event.PRE_TOOL_USE, null,
                "echo 'checker is broken' >&2; exit 1")));

        leadWithEvents(events, List.of(), c, false).run("write x");

        assertThat(dir.resolve("x.txt")).doesNotExist();
        assertThat(toolResults(model.requests().get(1)).get(0)).contains("blocked: the check PreToolUse hook")
                .contains("exit code 1: checker is broken").contains("fail");
        assertThat(errors(events)).anySatisfy(d -> {
            assertThat(d.path("hookEvent").asText()).isEqualTo("PreToolUse");
            assertThat(d.path("blocked").asBoolean()).isTrue();
            assertThat(d.path("message").asText()).contains("checker is broken");
        });
    }

    @Test
    void aPreToolUseCommandHookThatTimesOutBlocksTheCall() {
        oneCallThenEcho("write_file", "{\"path\":\"x.txt\",\"content\":\"x\"}");
        EngineHarness.Events events = new EngineHarness.Events();
        AgentContext c = ctx().withCommandHooks(List.of(new CommandHook(CommandHook.Event.PRE_TOOL_USE, null,
                "sleep 30", 1, "team settings")));

        leadWithEvents(events, List.of(), c, false).run("write x");

        assertThat(dir.resolve("x.txt")).doesNotExist();
        assertThat(toolResults(model.requests().get(1)).get(0)).contains("timed out after 1 s");
        assertThat(errors(events)).anySatisfy(d -> assertThat(d.path("message").asText()).contains("timed out after 1 s"));
    }

    @Test
    void aFailingPostToolUseCommandHookIsReportedAndTheResultStands() {
        oneCallThenEcho("write_file", "{\"path\":\"x.txt\",\"content\":\"x\"}");
        EngineHarness.Events events = new EngineHarness.Events();
        AgentContext c = ctx().withCommandHooks(List.of(CommandHook.of(CommandHook.Event.POST_TOOL_USE, "write_file",
                "exit 7")));

        leadWithEvents(events, List.of(), c, false).run("write x");

        assertThat(dir.resolve("x.txt")).exists();
        assertThat(toolResults(model.requests().get(1)).get(0)).startsWith("wrote 1 bytes").doesNotContain("[hook]");
        assertThat(errors(events)).anySatisfy(d -> {
            assertThat(d.path("hookEvent").asText()).isEqualTo("PostToolUse");
            assertThat(d.path("blocked").asBoolean()).isFalse();
            assertThat(d.path("message").asText()).contains("exit code 7");
        });
    }

    @Test
    void theEventJsonArrivesOnStdinAndAUserPromptSubmitHookAddsItsStdoutAsContext() throws Exception {
        model.load("""
                {"rules":[{"reply":{"text":"ok"}}]}""");
        AgentContext c = ctx().withCommandHooks(List.of(CommandHook.of(CommandHook.Event.USER_PROMPT_SUBMIT, null,
                "cat > prompt-event.json; echo 'branch: main'")));

        lead(new EngineHarness.Approvals(false), List.of(), c).run("what's up");

        var event = Json.MAPPER.readTree(Files.readString(dir.resolve("prompt-event.json")));
        assertThat(event.path("hook_event_name").asText()).isEqualTo("UserPromptSubmit");
        assertThat(event.path("prompt").asText()).isEqualTo("what's up");
        assertThat(event.path("agent").asText()).isEqualTo("lead");
        assertThat(messages(model.requests().get(0)).get(1).path("content").asText()).isEqualTo("what's up\n\nbranch: main");
    }

    @Test
    void hooksFromTheWorkspaceSettingsFileBlockAndAreReReadAtEveryTurn() throws Exception {
        Files.createDirectories(dir.resolve(".cohort"));
        Files.writeString(dir.resolve(".cohort/settings.json"), """
                {"permissions": {"allow": []},
                 "hooks": {"PreToolUse": [{"matcher": "write_.*", "hooks": [
                   {"type": "command", "command": "echo 'writes are frozen' >&2; exit 2", "timeout": 5}]}]}}""");
        oneCallThenEcho("write_file", "{\"path\":\"x.txt\",\"content\":\"x\"}");
        EngineHarness.Events events = new EngineHarness.Events();
        AgentSession s = leadWithEvents(events, List.of(), ctx(), true);

        s.run("write x");
        assertThat(dir.resolve("x.txt")).doesNotExist();
        assertThat(toolResults(model.requests().get(1)).get(0))
                .isEqualTo("Error: blocked by PreToolUse hook `echo 'writes are frozen' >&2; exit 2` (.cohort/settings.json): writes are frozen");

        // edited between turns: the next turn runs with the new content, no restart
        Files.writeString(dir.resolve(".cohort/settings.json"), "{\"hooks\": {}}");
        model.reset();
        model.load("""
                {"rules":[
                 {"match":{"lastMessage":"write x again"},"reply":{"toolCalls":[{"id":"c2","name":"write_file",
                   "arguments":{"path":"x.txt","content":"x"}}]}},
                 {"match":{"lastRole":"tool"},"reply":{"text":"result: {{lastMessage}}"}}]}""");
        s.run("write x again");
        assertThat(dir.resolve("x.txt")).exists();
        assertThat(errors(events)).isEmpty();
    }

    /** The workspace, whose reads of the hook settings file fail (as a tool runner timeout / 5xx) while {@code down}. */
    private final class FlakySettings implements WorkspaceToolExecutor {
        volatile boolean down;

        @Override
        public ToolOutcome execute(String tool, String callId,
                ObjectNode args, Target target) {
            if (down && callId.startsWith("hook-settings-")) {
                throw new IllegalStateException("tool runner answered 503");
            }
            return ws.execute(tool, callId, args, target);
        }
    }

    @Test
    void whenTheSettingsFileCannotBeReadTheTurnKeepsItsLastGoodHooksAndSaysSo() throws Exception {
        Files.createDirectories(dir.resolve(".cohort"));
        Files.writeString(dir.resolve(".cohort/settings.json"), """
                {"hooks": {"PreToolUse": [{"matcher": "write_.*", "hooks": [
                   {"type": "command", "command": "echo 'writes are frozen' >&2; exit 2", "timeout": 5}]}]}}""");
        FlakySettings flaky = new FlakySettings();
        oneCallThenEcho("write_file", "{\"path\":\"x.txt\",\"content\":\"x\"}");
        EngineHarness.Events events = new EngineHarness.Events();
        AgentSession s = leadWithEvents(events, List.of(), AgentContext.of("default", "lead", AgentRole.LEAD, flaky), true);
        s.run("write x");
        assertThat(errors(events)).isEmpty();

        flaky.down = true;
        model.reset();
        model.load("""
                {"rules":[
                 {"match":{"lastMessage":"write x again"},"reply":{"toolCalls":[{"id":"c2","name":"write_file",
                   "arguments":{"path":"x.txt","content":"x"}}]}},
                 {"match":{"lastRole":"tool"},"reply":{"text":"result: {{lastMessage}}"}}]}""");
        s.run("write x again");

        assertThat(dir.resolve("x.txt")).doesNotExist();
        assertThat(toolResults(model.requests().get(1)).get(1)).contains("writes are frozen");
        assertThat(errors(events)).singleElement().satisfies(d -> assertThat(d.path("message").asText())
                .contains("tool runner answered 503").contains("keeps its last valid hooks (1)"));
    }

    @Test
    void whenTheSettingsFileWasNeverReadAndItsReadFailsMutatingCallsAreBlockedNamingTheRule() throws Exception {
        Files.createDirectories(dir.resolve(".cohort"));
        Files.writeString(dir.resolve(".cohort/settings.json"), "{\"hooks\": {}}");
        Files.writeString(dir.resolve("a.txt"), "hello");
        FlakySettings flaky = new FlakySettings();
        flaky.down = true;
        model.load("""
                {"rules":[
                 {"match":{"hasToolResult":false},"reply":{"toolCalls":[
                   {"id":"c1","name":"write_file","arguments":{"path":"x.txt","content":"x"}},
                   {"id":"c2","name":"read_file","arguments":{"path":"a.txt"}}]}},
                 {"match":{"lastRole":"tool"},"reply":{"text":"done"}}]}""");
        EngineHarness.Events events = new EngineHarness.Events();

        leadWithEvents(events, List.of(), AgentContext.of("default", "lead", AgentRole.LEAD, flaky), true).run("write x");

        assertThat(dir.resolve("x.txt")).doesNotExist();
        List<String> results = toolResults(model.requests().get(1));
        assertThat(results.get(0)).startsWith("Error: blocked by rule 'hook-settings-unreadable': ")
                .contains("tool runner answered 503");
        assertThat(results.get(1)).contains("hello");
        assertThat(errors(events)).anySatisfy(d -> assertThat(d.path("message").asText())
                .contains("blocks every mutating tool call"));

        // the file missing is no failure: no hooks, nothing blocked
        Files.delete(dir.resolve(".cohort/settings.json"));
        flaky.down = false;
        model.reset();
        oneCallThenEcho("write_file", "{\"path\":\"x.txt\",\"content\":\"x\"}");
        EngineHarness.Events later = new EngineHarness.Events();
        leadWithEvents(later, List.of(), AgentContext.of("default", "lead", AgentRole.LEAD, flaky), true).run("write x");
        assertThat(dir.resolve("x.txt")).exists();
        assertThat(errors(later)).isEmpty();
    }

    @Test
    void aSettingsFileBrokenAfterAGoodReadKeepsTheGoodHooks() throws Exception {
        Files.createDirectories(dir.resolve(".cohort"));
        Files.writeString(dir.resolve(".cohort/settings.json"), """
                {"hooks": {"PreToolUse": [{"matcher": "write_.*", "hooks": [
                   {"type": "command", "command": "echo 'writes are frozen' >&2; exit 2", "timeout": 5}]}]}}""");
        oneCallThenEcho("write_file", "{\"path\":\"x.txt\",\"content\":\"x\"}");
        EngineHarness.Events events = new EngineHarness.Events();
        AgentSession s = leadWithEvents(events, List.of(), ctx(), true);
        s.run("write x");

        Files.writeString(dir.resolve(".cohort/settings.json"), "{\"hooks\": ");
        model.reset();
        model.load("""
                {"rules":[
                 {"match":{"lastMessage":"write x again"},"reply":{"toolCalls":[{"id":"c2","name":"write_file",
                   "arguments":{"path":"x.txt","content":"x"}}]}},
                 {"match":{"lastRole":"tool"},"reply":{"text":"result: {{lastMessage}}"}}]}""");
        s.run("write x again");

        assertThat(dir.resolve("x.txt")).doesNotExist();
        assertThat(toolResults(model.requests().get(1)).get(1)).contains("writes are frozen");
        assertThat(errors(events)).singleElement().satisfies(d -> assertThat(d.path("message").asText())
                .contains("invalid .cohort/settings.json").contains("keeps its last valid hooks (1)"));
    }

    @Test
    void aMalformedWorkspaceSettingsFileIsAnErrorEventAndTheTurnGoesOnWithoutItsHooks() throws Exception {
        Files.createDirectories(dir.resolve(".cohort"));
        Files.writeString(dir.resolve(".cohort/settings.json"), """
                {"hooks": {"PreToolUse": [{"matcher": "(", "hooks": [{"command": "exit 2"}]}]}}""");
        oneCallThenEcho("write_file", "{\"path\":\"x.txt\",\"content\":\"x\"}");
        EngineHarness.Events events = new EngineHarness.Events();

        TurnResult r = leadWithEvents(events, List.of(), ctx(), true).run("write x");

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(dir.resolve("x.txt")).exists();
        assertThat(errors(events)).singleElement().satisfies(d -> {
            assertThat(d.path("file").asText()).isEqualTo(".cohort/settings.json");
            assertThat(d.path("message").asText()).contains("hooks.PreToolUse[0].matcher").contains("invalid regex")
                    .contains("runs without its hooks");
        });
    }

    @Test
    void builtInHooksRunInPriorityOrderAndCommandHooksAfterThem() {
        oneCallThenEcho("write_file", "{\"path\":\"x.txt\",\"content\":\"x\"}");
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        // each records whether the command hook (which writes order.txt) already ran
        record Ordered(String label, int priority, List<String> order, Path marker) implements PreToolUseHook {
            @Override
            public Optional<String> beforeToolUse(ToolCall call, ToolContext c) {
                order.add(label + (Files.exists(marker) ? " after the command hook" : ""));
                return Optional.empty();
            }
        }
        Path marker = dir.resolve("order.txt");
        AgentContext c = ctx().withCommandHooks(List.of(CommandHook.of(CommandHook.Event.PRE_TOOL_USE, null,
                "echo command >> order.txt")));

        lead(new EngineHarness.Approvals(false), List.of(new Ordered("late", 20, order, marker),
                new Ordered("early", -5, order, marker), new Ordered("middle", 0, order, marker)), c).run("write x");

        assertThat(order).containsExactly("early", "middle", "late");
        assertThat(marker).hasContent("command");
    }
}
