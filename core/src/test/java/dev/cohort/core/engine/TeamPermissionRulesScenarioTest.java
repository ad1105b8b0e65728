package dev.cohort.core.engine;

import static dev.cohort.core.engine.EngineHarness.toolResults;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.engine.hooks.HookSettings;
import dev.cohort.core.engine.permission.PermissionRuleSet;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.testing.ScriptedModelTestBase;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.devstack.model.RecordedRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The team's permission rules through the engine, against the scripted model: the host's rules (the API) and the
 * workspace settings file's, read at every turn, for the agent and its subagents.
 */
class TeamPermissionRulesScenarioTest extends ScriptedModelTestBase {
    @TempDir
    Path dir;
    LocalWorkspace ws;
    EngineHarness.Events events;
    EngineHarness.Approvals approvals;

    @BeforeEach
    void reset() {
        ws = new LocalWorkspace(dir);
        events = new EngineHarness.Events();
        approvals = new EngineHarness.Approvals(false);
    }

    private AgentSession lead(AgentContext ctx) {
        return EngineHarness.engine(EngineHarness.modelClient(model), events, List.of()).approvals(approvals)
                .workspaceHookSettings(HookSettings.WORKSPACE_FILE).build().open(ctx, null);
    }

    private AgentContext ctx() {
        return AgentContext.of("default", "lead", AgentRole.LEAD, ws);
    }

    /** The lead answers the prompt {@code prompt} with {@code calls} (a JSON array), then says "done". */
    private void calls(String prompt, String calls) {
        model.load("""
                {"rules":[
                 {"match":{"agent":"default/lead","lastMessage":"^%s$"},"reply":{"toolCalls":%s}},
                 {"match":{"agent":"default/lead","lastRole":"tool"},"reply":{"text":"done"}}]}""".formatted(prompt,
                calls));
    }

    /** The results of the last {@code n} tool calls the lead's last request carried (this turn's). */
    private List<String> leadResults(int n) {
        List<RecordedRequest> lead = model.requests().stream().filter(r -> r.agent().equals("default/lead")).toList();
        List<String> all = toolResults(lead.get(lead.size() - 1));
        return all.subList(all.size() - n, all.size());
    }

    private List<String> errors() {
        return events.dataOf(EventType.ERROR).stream().map(d -> d.path("message").asText()).toList();
    }

    @Test
    void theHostsRulesDenyAllowAndAskAndAChangeAppliesFromTheNextTurn() throws Exception {
        Files.createDirectories(dir.resolve("build"));
        AtomicReference<PermissionRuleSet> rules = new AtomicReference<>(new PermissionRuleSet(
                List.of("Bash(rm -rf build)"), List.of("Edit(src/**)"), List.of("Bash(curl:*)")));
        AgentSession s = lead(ctx().withPermissions(rules::get));
        calls("go", """
                [{"id":"c1","name":"bash","arguments":{"command":"curl -s http://127.0.0.1:9/x"}},
                 {"id":"c2","name":"bash","arguments":{"command":"rm -rf build"}},
                 {"id":"c3","name":"write_file","arguments":{"path":"src/a.js","content":"x"}}]""");

        s.run("go");

        assertThat(leadResults(3).get(0)).isEqualTo("Error: permission denied by rule 'rule:deny Bash(curl:*)': denied"
                + " by the team rule deny Bash(curl:*) (team settings) for 'curl -s http://127.0.0.1:9/x'");
        // the allow lifted the command rule set's ask for rm -rf: it ran without one
        assertThat(dir.resolve("build")).doesNotExist();
        assertThat(approvals.asked).singleElement().satisfies(a -> {
            assertThat(a.tool()).isEqualTo("write_file");
            assertThat(a.reason()).isEqualTo("the team rule ask Edit(src/**) (team settings) for 'src/a.js'");
        });
        assertThat(dir.resolve("src/a.js")).doesNotExist();

        // the rules are read again at the next turn: curl is no longer denied by them
        rules.set(PermissionRuleSet.EMPTY);
        model.reset();
        calls("again", "[{\"id\":\"c4\",\"name\":\"bash\",\"arguments\":{\"command\":\"curl -s http://127.0.0.1:9/x\"}}]");
        s.run("again");
        assertThat(leadResults(1).get(0)).doesNotContain("permission denied");
    }

    @Test
    void aSubagentFollowsTheTeamsRules() {
        AgentSession s = lead(ctx().withPermissions(() -> new PermissionRuleSet(null, null,
                List.of("Bash(curl:*)"))));
        model.load("""
                {"rules":[
                 {"match":{"agent":"default/lead","hasToolResult":false},"reply":{"toolCalls":[{"id":"s1",
                   "name":"spawn_subagent","arguments":{"description":"fetch the page"}}]}},
                 {"match":{"agent":"default/lead/sub","hasToolResult":false},"reply":{"toolCalls":[{"id":"w",
                   "name":"bash","arguments":{"command":"cd . && curl http://127.0.0.1:9/"}}]}},
                 {"match":{"agent":"default/lead/sub"},"reply":{"text":"sub saw: {{lastMessage}}"}},
                 {"match":{"agent":"default/lead","lastRole":"tool"},"reply":{"text":"done"}}]}""");

        s.run("use a subagent");

        assertThat(leadResults(1).get(0)).startsWith("sub saw: Error: permission denied by rule 'rule:deny"
                + " Bash(curl:*)'");
    }

    @Test
    void theSettingsFilesRulesApplyAndABadRuleKeepsTheLastGoodOnesWithAnErrorEvent() throws Exception {
        Files.createDirectories(dir.resolve(".cohort"));
        Files.writeString(dir.resolve(".cohort/settings.json"), """
                {"permissions": {"deny": ["Bash(curl:*)"], "ask": ["Edit(src/**)"]}}""");
        AgentSession s = lead(ctx());
        calls("go", "[{\"id\":\"c1\",\"name\":\"bash\",\"arguments\":{\"command\":\"curl http://127.0.0.1:9/\"}}]");
        s.run("go");
        assertThat(leadResults(1).get(0)).isEqualTo("Error: permission denied by rule 'rule:deny Bash(curl:*)': denied"
                + " by the team rule deny Bash(curl:*) (.cohort/settings.json) for 'curl http://127.0.0.1:9/'");
        assertThat(errors()).isEmpty();

        Files.writeString(dir.resolve(".cohort/settings.json"), """
                {"permissions": {"deny": ["Bash(curl:*"]}}""");
        model.reset();
        calls("again", """
                [{"id":"c2","name":"bash","arguments":{"command":"curl http://127.0.0.1:9/"}},
                 {"id":"c3","name":"write_file","arguments":{"path":"src/a.js","content":"x"}}]""");
        s.run("again");

        assertThat(leadResults(2).get(0)).startsWith("Error: permission denied by rule 'rule:deny Bash(curl:*)'");
        assertThat(approvals.asked).extracting(ApprovalGateway.Request::tool).containsExactly("write_file");
        assertThat(errors()).singleElement().isEqualTo("invalid .cohort/settings.json: permissions.deny[0]"
                + " 'Bash(curl:*': the specifier misses its closing ')'; the last valid permission rules of it stay in"
                + " force (0 allow, 1 ask, 1 deny)");
        assertThat(events.dataOf(EventType.ERROR).get(0).path("file").asText()).isEqualTo(".cohort/settings.json");
    }
}
