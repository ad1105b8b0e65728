package dev.cohort.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.engine.permission.PermissionMode;
import dev.cohort.core.engine.permission.PermissionRuleSet;
import dev.cohort.core.mcp.McpServerConfig;
import dev.cohort.core.mcp.McpServerTools;
import dev.cohort.core.mcp.McpToolInfo;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.mcp.McpGateway;
import dev.cohort.core.tools.mcp.McpToolbox;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * How the engine offers and calls a team's MCP tools, with an in-memory {@link McpGateway} in place of the tool runner
 * (the runner's side is proven against real servers in tool-runner-service's McpHostTest): which agents get which
 * server, a changed list offered at the next step, the gate asking for a tool the rules do not allow, plan mode, and a
 * server that cannot be listed.
 */
class McpToolsEngineTest {

    /** Lists what the test puts in {@link #tools} under a version that changes with them; records the calls. */
    static final class Gateway implements McpGateway {
        final Map<String, List<McpToolInfo>> tools = new ConcurrentHashMap<>();
        final Map<String, String> errors = new ConcurrentHashMap<>();
        final AtomicLong version = new AtomicLong(1);
        final List<String> calls = Collections.synchronizedList(new ArrayList<>());
        Runnable onCall = () -> { };

        @Override
        public List<McpServerTools> tools(String team, String agent, boolean readOnly, List<McpServerConfig> servers) {
            return servers.stream().map(s -> errors.containsKey(s.name())
                    ? new McpServerTools(s.name(), null, version.get(), errors.get(s.name()))
                    : new McpServerTools(s.name(), tools.getOrDefault(s.name(), List.of()), version.get(), null))
                    .toList();
        }

        @Override
        public ToolOutcome call(McpServerConfig server, String name, String callId, ObjectNode args,
                WorkspaceToolExecutor.Target target) {
            calls.add(name + " " + args + (target.readOnly() ? " read-only" : ""));
            onCall.run();
            return ToolOutcome.ok("result of " + name);
        }
    }

    static McpToolInfo tool(String name, boolean readOnly) {
        JsonNode schema = Json.read("{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"}}}", JsonNode.class);
        return new McpToolInfo(name, "does " + name, schema, readOnly);
    }

    static McpServerConfig server(String name, List<String> agents) {
        return new McpServerConfig(name, "stdio", "srv", null, null, null, null, agents, "api");
    }

    private final Gateway gateway = new Gateway();
    private final EngineHarness.Events events = new EngineHarness.Events();
    private final EngineSeamsTest.Approvals approvals = new EngineSeamsTest.Approvals();

    private AgentEngine engine(EngineSeamsTest.Script model) {
        return AgentEngine.builder().model(model).tools(ToolRegistry.of(List.of())).events(events).approvals(approvals)
                .bundledSkills(List.of()).sleeper(d -> { }).mcp(new McpToolbox(gateway)).build();
    }

    private static AgentContext agent(String name, Map<String, McpServerConfig> servers) {
        return AgentContext.of("t", name, AgentRole.TEAMMATE, (tool, id, args, target) -> ToolOutcome.ok(""))
                .withAllowlist(java.util.Set.of()).withMcpServers(() -> servers);
    }

    private static List<String> offered(ModelClient.Request r) {
        return r.tools().stream().map(ToolSpecification::name).toList();
    }

    @Test
    void theServersToolsAreOfferedToTheAgentsItNamesAndAChangedListAtTheNextStep() {
        gateway.tools.put("docs", List.of(tool("search", true)));
        gateway.tools.put("admin", List.of(tool("reset", false)));
        Map<String, McpServerConfig> servers = Map.of("docs", server("docs", null),
                "admin", server("admin", List.of("lead")));
        // the first call changes the server's list (as notifications/tools/list_changed would)
        gateway.onCall = () -> {
            gateway.tools.put("docs", List.of(tool("search", true), tool("fetch", true)));
            gateway.version.incrementAndGet();
        };
        EngineSeamsTest.Script model = new EngineSeamsTest.Script()
                .then(r -> ModelClient.Reply.calls(null, List.of(new ModelToolCall("c1", "mcp__docs__search",
                        "{\"q\":\"x\"}"))))
                .answers("done");
        engine(model).open(agent("alice", servers).withPermissions(() -> new PermissionRuleSet(
                List.of("mcp__docs"), List.of(), List.of())), null).run("look");

        assertThat(offered(model.seen.get(0))).containsExactly("mcp__docs__search");
        assertThat(offered(model.seen.get(1))).containsExactly("mcp__docs__search", "mcp__docs__fetch");
        assertThat(gateway.calls).containsExactly("mcp__docs__search {\"q\":\"x\"}");
        assertThat(approvals.asked).isEmpty(); // the team's rule allows the whole server
        assertThat(model.seen.get(0).tools().get(0).description()).contains("MCP server docs").contains("does search");
    }

    @Test
    void aToolTheRulesDoNotAllowIsAskedAndOneTheyDenyIsRefused() {
        gateway.tools.put("gh", List.of(tool("create_issue", false), tool("delete_repo", false)));
        approvals.answers.put("c1", ApprovalGateway.Decision.deny("no"));
        EngineSeamsTest.Script model = new EngineSeamsTest.Script()
                .then(r -> ModelClient.Reply.calls(null, List.of(
                        new ModelToolCall("c1", "mcp__gh__create_issue", "{}"),
                        new ModelToolCall("c2", "mcp__gh__delete_repo", "{}"))))
                .answers("done");
        engine(model).open(agent("lead", Map.of("gh", server("gh", null))).withPermissions(() ->
                new PermissionRuleSet(List.of(), List.of(), List.of("mcp__gh__delete_repo"))), null).run("go");

        assertThat(approvals.asked).singleElement().satisfies(a -> {
            assertThat(a.tool()).isEqualTo("mcp__gh__create_issue");
            assertThat(a.reason()).contains("a tool of MCP server 'gh'");
        });
        assertThat(gateway.calls).isEmpty();
        List<String> results = model.seen.get(1).messages().stream().filter(m -> m.role() == Message.Role.TOOL)
                .map(Message::content).toList();
        assertThat(results.get(1)).contains("permission denied by rule 'rule:deny mcp__gh__delete_repo'");
    }

    @Test
    void planModeRunsOnlyToolsTheServerDeclaresReadOnlyAndTellsTheRunner() {
        gateway.tools.put("fs", List.of(tool("read", true), tool("write", false)));
        EngineSeamsTest.Script model = new EngineSeamsTest.Script()
                .then(r -> ModelClient.Reply.calls(null, List.of(new ModelToolCall("c1", "mcp__fs__read", "{}"),
                        new ModelToolCall("c2", "mcp__fs__write", "{}"))))
                .answers("done");
        engine(model).open(agent("lead", Map.of("fs", server("fs", null))).withMode(PermissionMode.PLAN)
                .withPermissions(() -> new PermissionRuleSet(List.of("mcp__fs"), List.of(), List.of())), null)
                .run("plan");
        assertThat(gateway.calls).containsExactly("mcp__fs__read {} read-only");
    }

    @Test
    void aServerThatCannotBeListedIsAnErrorEventAndTheOthersToolsAreStillOffered() {
        gateway.tools.put("ok", List.of(tool("ping", true)));
        gateway.errors.put("down", "MCP server 'down' cannot be started: no such program");
        EngineSeamsTest.Script model = new EngineSeamsTest.Script().answers("done");
        engine(model).open(agent("lead", Map.of("ok", server("ok", null), "down", server("down", null))), null)
                .run("hi");
        assertThat(offered(model.seen.get(0))).containsExactly("mcp__ok__ping");
        assertThat(events.dataOf(EventType.ERROR)).extracting(d -> d.path("message").asText())
                .containsExactly("MCP server 'down' cannot be started: no such program");
    }
}
