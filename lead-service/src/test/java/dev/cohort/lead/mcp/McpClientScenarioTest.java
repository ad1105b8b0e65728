package dev.cohort.lead.mcp;

import static dev.cohort.lead.ScriptedLeadTurns.last;
import static dev.cohort.lead.ScriptedLeadTurns.newTeam;
import static dev.cohort.lead.ScriptedLeadTurns.prompt;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.devstack.model.ScriptedModelClient;
import dev.cohort.devstack.quarkus.ToolRunnerTestResource;
import dev.cohort.lead.ModelRules;
import dev.cohort.lead.ScriptedLeadTurns;
import dev.cohort.lead.events.EventRepository;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Cohort as an MCP client, end to end on real parts (the lead, the tool runner with its team sandboxes, PostgreSQL,
 * the scripted model) and MCP servers nobody here wrote: the scripted lead is offered the tools of the team's
 * {@code server-filesystem} (configured through {@code PUT …/mcp}), which runs in the team's sandbox; a call the
 * team's rules allow runs, one they deny is refused, one they do not name is asked and runs once approved; a
 * {@code server-everything} killed mid-call is a tool error naming it, and the turn goes on. And one team's lead hands a
 * prompt to another team through Cohort's own {@code /mcp}, spoken to as a remote server (the stateless revision).
 */
@QuarkusTest
class McpClientScenarioTest {

    @ConfigProperty(name = "cohort.devstack.model-admin-url", defaultValue = "http://127.0.0.1:1")
    String modelAdmin;

    @ConfigProperty(name = "cohort.test.workspace", defaultValue = "/nonexistent")
    String workspace;

    @TestHTTPResource("/mcp")
    URL mcpUrl;

    @Inject
    EventRepository eventStore;

    ScriptedModelClient model;
    ScriptedLeadTurns turns;

    @BeforeEach
    void setUp() {
        model = new ScriptedModelClient(modelAdmin);
        model.load("{\"rules\":[" + ModelRules.MEMORY_RULE + "]}");
        turns = new ScriptedLeadTurns(model, eventStore);
    }

    @Test
    void theLeadUsesTheTeamsFilesystemServerUnderItsRulesAndApprovals() throws Exception {
        McpPeers peers = McpPeers.required();
        String team = newTeam("mcp-fs");
        Path ws = Path.of(workspace, "teams", team);
        given().contentType("application/json").body(Map.of("mcpServers", Map.of("fs", Map.of(
                "command", peers.node().toString(), "args", List.of(peers.filesystem().toString(), ".")))))
                .put("/api/v1/teams/" + team + "/mcp").then().statusCode(200);
        given().contentType("application/json").body("""
                {"allow": ["mcp__fs__list_allowed_directories", "mcp__fs__read_text_file"],
                 "deny": ["mcp__fs__move_file"]}""").put("/api/v1/teams/" + team + "/permissions").then()
                .statusCode(200);
        calls(team, "warm-up", "[{\"id\":\"w1\",\"name\":\"mcp__fs__list_allowed_directories\",\"arguments\":{}}]");
        awaitTurnCompleted(team, prompt(team, "warm-up"));
        assertThat(last(toolResults(team))).contains(ws.toRealPath().toString());
        Files.writeString(ws.resolve("notes.txt"), "written by a person\n");

        calls(team, "go", """
                [{"id":"c1","name":"mcp__fs__read_text_file","arguments":{"path":"%1$s/notes.txt"}},
                 {"id":"c2","name":"mcp__fs__move_file","arguments":{"source":"%1$s/notes.txt",
                  "destination":"%1$s/moved.txt"}},
                 {"id":"c3","name":"mcp__fs__write_file","arguments":{"path":"%1$s/from-mcp.txt",
                  "content":"written through MCP"}}]""".formatted(ws.toRealPath()));
        String prompt = prompt(team, "go");

        // asked: a tool of a server the rules do not name is code Cohort did not write
        JsonNode asked = await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(300))
                .until(() -> events(team, "approval_requested").stream().findFirst().orElse(null), e -> e != null);
        assertThat(asked.path("data").path("tool").asText()).isEqualTo("mcp__fs__write_file");
        assertThat(asked.path("data").path("reason").asText()).contains("a tool of MCP server 'fs'");
        assertThat(ws.resolve("from-mcp.txt")).doesNotExist();
        given().contentType("application/json").body(Map.of("approve", true))
                .post("/api/v1/teams/" + team + "/approvals/" + asked.path("data").path("approvalId").asText())
                .then().statusCode(200);
        awaitTurnCompleted(team, prompt);

        List<String> results = toolResults(team);
        assertThat(results.get(results.size() - 3)).contains("written by a person");
        assertThat(results.get(results.size() - 2)).startsWith("Error: permission denied by rule"
                + " 'rule:deny mcp__fs__move_file'");
        assertThat(ws.resolve("notes.txt")).exists();
        assertThat(last(results)).as(results.toString()).doesNotStartWith("Error");
        assertThat(ws.resolve("from-mcp.txt")).hasContent("written through MCP");

        // listed: the model was offered the server's tools with their schemas
        JsonNode tools = lastRequest(team).path("body").path("tools");
        List<String> names = new ArrayList<>();
        tools.forEach(t -> names.add(t.path("function").path("name").asText()));
        assertThat(names).contains("mcp__fs__read_text_file", "mcp__fs__write_file", "mcp__fs__move_file", "bash");
        assertThat(events(team, "tool_call_finished")).extracting(e -> e.path("data").path("tool").asText()
                + " " + e.path("data").path("error").asBoolean())
                .contains("mcp__fs__read_text_file false", "mcp__fs__move_file true", "mcp__fs__write_file false");
    }

    @Test
    void aServerKilledMidCallIsAToolErrorNamingItAndTheTurnGoesOn() throws Exception {
        McpPeers peers = McpPeers.required();
        String team = newTeam("mcp-kill");
        given().contentType("application/json").body(Map.of("mcpServers", Map.of("everything", Map.of(
                "command", peers.node().toString(), "args", List.of(peers.everything().toString(), "stdio")))))
                .put("/api/v1/teams/" + team + "/mcp").then().statusCode(200);
        given().contentType("application/json").body("{\"allow\": [\"mcp__everything\"]}")
                .put("/api/v1/teams/" + team + "/permissions").then().statusCode(200);
        calls(team, "slow", "[{\"id\":\"s1\",\"name\":\"mcp__everything__trigger-long-running-operation\","
                + "\"arguments\":{\"duration\":50,\"steps\":5}}]");
        String prompt = prompt(team, "slow");
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100))
                .until(() -> !events(team, "tool_call_started").isEmpty());
        // the server in the team's sandbox is killed, whenever it is found, until the call has its result
        AtomicBoolean done = new AtomicBoolean();
        Thread killer = Thread.ofVirtual().start(() -> {
            while (!done.get()) {
                ProcessHandle.allProcesses().filter(h -> h.info().commandLine().orElse("")
                        .contains(peers.everything().toString())).filter(h -> h.info().command().orElse("")
                        .contains("node")).forEach(ProcessHandle::destroyForcibly);
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        try {
            awaitTurnCompleted(team, prompt);
        } finally {
            done.set(true);
            killer.join();
        }
        assertThat(last(toolResults(team))).contains("MCP server 'everything'").contains("exited")
                .contains("trigger-long-running-operation");
    }

    @Test
    void aTeamHandsAPromptToAnotherTeamThroughCohortsOwnMcpServer() throws Exception {
        String asker = ToolRunnerTestResource.NETWORK_TEAM; // the runner gives this team's sandbox the network
        given().contentType("application/json").body("{\"id\":\"" + asker + "\"}").post("/api/v1/teams");
        String answerer = newTeam("mcp-answer");
        model.append("""
                {"rules":[{"name":"sum-%1$s","match":{"agent":"%1$s/lead","lastMessage":"^what is 2\\\\+2\\\\?$"},
                           "reply":{"text":"4"}}]}""".formatted(answerer));
        given().contentType("application/json").body(Map.of("mcpServers", Map.of("cohort", Map.of(
                "type", "http", "url", mcpUrl.toString()))))
                .put("/api/v1/teams/" + asker + "/mcp").then().statusCode(200);
        given().contentType("application/json").body("{\"allow\": [\"mcp__cohort__send_prompt\"]}")
                .put("/api/v1/teams/" + asker + "/permissions").then().statusCode(200);
        String text = "ask-" + UUID.randomUUID().toString().substring(0, 8);
        calls(asker, text, "[{\"id\":\"m1\",\"name\":\"mcp__cohort__send_prompt\",\"arguments\":{\"team\":\""
                + answerer + "\",\"text\":\"what is 2+2?\",\"wait_seconds\":120}}]");
        awaitTurnCompleted(asker, prompt(asker, text));
        assertThat(last(toolResults(asker))).contains("\"answer\":\"4\"");
    }

    private void calls(String team, String text, String calls) {
        turns.calls(team, text, calls);
    }

    private List<JsonNode> events(String team, String type) {
        return turns.events(team, type);
    }

    private void awaitTurnCompleted(String team, String promptId) {
        turns.awaitTurnCompleted(team, promptId);
    }

    private JsonNode lastRequest(String team) {
        return turns.lastRequest(team);
    }

    private List<String> toolResults(String team) {
        return turns.toolResults(team);
    }
}
