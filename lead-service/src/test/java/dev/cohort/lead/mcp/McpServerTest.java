package dev.cohort.lead.mcp;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.devstack.model.ScriptedModelClient;
import dev.cohort.lead.ModelRules;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import java.io.IOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Cohort as an MCP server, on the lead's real stack (Kafka, PostgreSQL, the scripted model): a team is handed a prompt
 * over {@code POST /mcp} and its answer comes back in the tool result; the board, agents and approvals are read; bad
 * requests get the protocol's errors. Then the MCP inspector's CLI, a client nobody here wrote, lists and calls the
 * tools.
 */
@QuarkusTest
class McpServerTest {

    @ConfigProperty(name = "cohort.devstack.model-admin-url", defaultValue = "http://127.0.0.1:1")
    String modelAdmin;

    @TestHTTPResource("/mcp")
    URL mcpUrl;

    ScriptedModelClient model;
    String team;

    @BeforeEach
    void team() {
        team = "mcp-" + UUID.randomUUID().toString().substring(0, 8);
        given().contentType("application/json").body("{\"id\":\"" + team + "\"}").post("/api/v1/teams")
                .then().statusCode(201);
        model = new ScriptedModelClient(modelAdmin);
        model.reset();
        model.load("""
                {"rules":[{"name":"sum","match":{"agent":"%s/lead","lastMessage":"^what is 2\\\\+2\\\\?$"},
                           "reply":{"text":"4"}},%s]}
                """.formatted(team, ModelRules.MEMORY_RULE));
    }

    private static JsonNode rpc(String method, String params) {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + method + "\""
                + (params == null ? "" : ",\"params\":" + params) + "}";
        Response r = given().contentType("application/json").accept("application/json, text/event-stream")
                .body(body).post("/mcp");
        assertThat(r.statusCode()).as(r.asString()).isEqualTo(200);
        try {
            return Json.MAPPER.readTree(r.asString());
        } catch (IOException e) {
            throw new AssertionError(r.asString(), e);
        }
    }

    private static JsonNode call(String tool, String arguments) {
        JsonNode r = rpc("tools/call", "{\"name\":\"" + tool + "\",\"arguments\":" + arguments + "}");
        assertThat(r.has("result")).as(r.toString()).isTrue();
        return r.get("result");
    }

    @Test
    void aClientInitializesListsTheToolsAndHandsATeamAPromptWhoseAnswerComesBack() {
        JsonNode init = rpc("initialize", "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                + "\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}");
        assertThat(init.at("/result/protocolVersion").asText()).isEqualTo("2025-11-25");
        assertThat(init.at("/result/serverInfo/name").asText()).isEqualTo("cohort");
        given().contentType("application/json").body("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")
                .post("/mcp").then().statusCode(202);

        List<String> tools = new ArrayList<>();
        rpc("tools/list", null).at("/result/tools").forEach(t -> tools.add(t.get("name").asText()));
        assertThat(tools).containsExactly("send_prompt", "get_prompt", "list_tasks", "list_approvals",
                "answer_approval", "list_agents");

        JsonNode sent = call("send_prompt", "{\"team\":\"" + team + "\",\"text\":\"what is 2+2?\",\"wait_seconds\":600,"
                + "\"idempotency_key\":\"k1\"}");
        assertThat(sent.get("isError").asBoolean()).as(sent.toString()).isFalse();
        JsonNode answer = sent.get("structuredContent");
        assertThat(answer.get("status").asText()).as(answer.toString()).isEqualTo("done");
        assertThat(answer.get("answer").asText()).isEqualTo("4");
        assertThat(answer.get("reason").asText()).isEqualTo("completed");
        assertThat(sent.at("/content/0/text").asText()).contains("\"answer\":\"4\"");

        // the same key again is the same prompt, answered already: no second turn
        JsonNode again = call("send_prompt", "{\"team\":\"" + team + "\",\"text\":\"what is 2+2?\",\"wait_seconds\":0,"
                + "\"idempotency_key\":\"k1\"}").get("structuredContent");
        assertThat(again.get("promptId").asText()).isEqualTo(answer.get("promptId").asText());
        JsonNode polled = call("get_prompt", "{\"team\":\"" + team + "\",\"prompt_id\":\""
                + answer.get("promptId").asText() + "\"}").get("structuredContent");
        assertThat(polled.get("answer").asText()).isEqualTo("4");
        assertThat(model.requests().stream().filter(r -> !ModelRules.isMemoryRequest(r))
                .filter(r -> (team + "/lead").equals(r.path("body").path("user").asText()))).hasSize(1);

        JsonNode agents = call("list_agents", "{\"team\":\"" + team + "\"}").get("structuredContent");
        assertThat(agents.at("/agents/0/name").asText()).isEqualTo("lead");
        assertThat(call("list_tasks", "{\"team\":\"" + team + "\"}").at("/structuredContent/tasks").isArray()).isTrue();
        assertThat(call("list_approvals", "{\"team\":\"" + team + "\"}").at("/structuredContent/approvals").isEmpty())
                .isTrue();
    }

    @Test
    void theStatelessGenerationDiscoversTheServerAndCallsAToolWithoutAHandshake() {
        String meta = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}";
        JsonNode d = rpc("server/discover", "{" + meta + "}");
        assertThat(d.at("/result/supportedVersions/0").asText()).isEqualTo("2026-07-28");
        JsonNode r = rpc("tools/call", "{\"name\":\"list_agents\",\"arguments\":{\"team\":\"" + team + "\"}," + meta
                + "}");
        assertThat(r.at("/result/resultType").asText()).isEqualTo("complete");
        assertThat(r.at("/result/isError").asBoolean()).isFalse();
    }

    @Test
    void aRefusalIsAToolErrorThatSaysWhyAndBadArgumentsAreInvalidParams() {
        JsonNode unknownTeam = call("list_agents", "{\"team\":\"no-such-team\"}");
        assertThat(unknownTeam.get("isError").asBoolean()).isTrue();
        assertThat(unknownTeam.at("/content/0/text").asText()).contains("no-such-team");

        JsonNode unknownApproval = call("answer_approval", "{\"team\":\"" + team + "\",\"approval_id\":\"ap_x\","
                + "\"approve\":true}");
        assertThat(unknownApproval.get("isError").asBoolean()).isTrue();
        assertThat(unknownApproval.at("/structuredContent/status").asInt()).isEqualTo(404);

        JsonNode missing = rpc("tools/call", "{\"name\":\"send_prompt\",\"arguments\":{\"team\":\"" + team + "\"}}");
        assertThat(missing.at("/error/code").asInt()).isEqualTo(-32602);
        assertThat(missing.at("/error/message").asText()).contains("\"text\" is required");
        JsonNode tooLong = rpc("tools/call", "{\"name\":\"get_prompt\",\"arguments\":{\"prompt_id\":\"p\","
                + "\"wait_seconds\":601}}");
        assertThat(tooLong.at("/error/message").asText()).contains("wait_seconds").contains("from 0 to 600");
        JsonNode extra = rpc("tools/call", "{\"name\":\"list_tasks\",\"arguments\":{\"teem\":\"x\"}}");
        assertThat(extra.at("/error/message").asText()).contains("unknown argument \"teem\"");
    }

    @Test
    void aBrowserPageIsRefusedAndThereIsNoStreamOrSessionToEnd() {
        given().contentType("application/json").header("Origin", "https://evil.example")
                .body("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").post("/mcp").then().statusCode(403);
        given().contentType("application/json").header("Origin", "http://localhost:3000")
                .body("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").post("/mcp").then().statusCode(200);
        given().get("/mcp").then().statusCode(405).header("Allow", "POST");
        given().delete("/mcp").then().statusCode(405);
        given().contentType("application/json").body("{\"jsonrpc\":").post("/mcp").then().statusCode(400);
    }

    @Test
    void theMcpInspectorsCliListsAndCallsTheTools() throws Exception {
        McpPeers peers = McpPeers.required();
        JsonNode list = json(peers.run(peers.inspector(), mcpUrl.toString(), "--transport", "http", "--method",
                "tools/list"));
        assertThat(list.get("tools")).extracting(t -> t.get("name").asText()).contains("send_prompt", "list_agents");

        JsonNode called = json(peers.run(peers.inspector(), mcpUrl.toString(), "--transport", "http", "--method",
                "tools/call", "--tool-name", "send_prompt", "--tool-arg", "team=" + team, "text=what is 2+2?",
                "wait_seconds=600"));
        assertThat(called.at("/structuredContent/answer").asText()).as(called.toString()).isEqualTo("4");
    }

    /**
     * The official conformance suite's server scenarios that apply to a server whose tools are its own (the others call
     * the suite's test tools, or need resources, prompts, logging, completions or server-to-client requests, which
     * Cohort does not offer): each must pass.
     */
    @Test
    void theOfficialConformanceScenariosItClaimsPass() throws Exception {
        McpPeers peers = McpPeers.required();
        for (String scenario : McpPeers.CLAIMED_SCENARIOS) {
            String out = peers.run(peers.conformance(), "server", "--url", mcpUrl.toString(), "--scenario", scenario);
            // the suite's summary line, e.g. "Passed: 1/1, 0 failed, 0 warnings"
            assertThat(out).as(scenario + ":\n" + out).containsPattern("Passed: (\\d+)/\\1, 0 failed");
        }
    }

    private static JsonNode json(String output) throws IOException {
        int start = output.indexOf('{');
        assertThat(start).as(output).isGreaterThanOrEqualTo(0);
        return Json.MAPPER.readTree(output.substring(start));
    }
}
