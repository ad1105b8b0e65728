package dev.cohort.lead.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The protocol's answers to good and bad messages of both generations, over a tool set of one echo tool. */
class McpProtocolTest {

    private final McpProtocol mcp = new McpProtocol("cohort", "1.2.3", "hello", new McpProtocol.Tools() {
        @Override
        public List<ObjectNode> list() {
            ObjectNode t = Json.MAPPER.createObjectNode();
            t.put("name", "echo");
            t.set("inputSchema", McpProtocol.schema(Map.of(), List.of()));
            return List.of(t);
        }

        @Override
        public ObjectNode call(String name, JsonNode arguments) {
            if (name.equals("broken")) {
                throw new IllegalStateException("database away: password=hunter2");
            }
            if (!name.equals("echo")) {
                throw new McpProtocol.InvalidParams("unknown tool \"" + name + "\"");
            }
            return McpProtocol.result(arguments, false);
        }
    });

    private JsonNode post(String body) {
        McpProtocol.Reply r = mcp.handle(body, null, null);
        return r.body();
    }

    @Test
    void initializeAnswersTheAskedLegacyVersionOrTheNewestAndTheServersIdentity() {
        JsonNode r = post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}");
        assertThat(r.at("/result/protocolVersion").asText()).isEqualTo("2025-06-18");
        assertThat(r.at("/result/serverInfo/name").asText()).isEqualTo("cohort");
        assertThat(r.at("/result/capabilities/tools/listChanged").asBoolean(true)).isFalse();
        assertThat(r.at("/result/instructions").asText()).isEqualTo("hello");
        assertThat(r.at("/result/resultType").isMissingNode()).isTrue();

        JsonNode future = post("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"initialize\",\"params\":"
                + "{\"protocolVersion\":\"2099-01-01\"}}");
        assertThat(future.at("/result/protocolVersion").asText()).isEqualTo("2025-11-25");
        assertThat(future.get("id").asText()).isEqualTo("a");
    }

    @Test
    void aNotificationOrAClientsResponseIsAcceptedWithNothingToAnswer() {
        assertThat(mcp.handle("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", null, null))
                .isEqualTo(new McpProtocol.Reply(202, null));
        assertThat(mcp.handle("{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}", null, null).status()).isEqualTo(202);
    }

    @Test
    void theStatelessGenerationNeedsNoInitializeAndMarksEveryResultComplete() {
        String meta = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}";
        JsonNode d = post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" + meta + "}}");
        assertThat(d.at("/result/resultType").asText()).isEqualTo("complete");
        assertThat(d.at("/result/supportedVersions").toString()).isEqualTo("[\"2026-07-28\",\"2025-11-25\",\"2025-06-18\",\"2025-03-26\"]");
        assertThat(d.at("/result/serverInfo/version").asText()).isEqualTo("1.2.3");

        JsonNode call = post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
                + "\"arguments\":{\"x\":1}," + meta + "}}");
        assertThat(call.at("/result/resultType").asText()).isEqualTo("complete");
        assertThat(call.at("/result/structuredContent/x").asInt()).isEqualTo(1);
        assertThat(call.at("/result/content/0/text").asText()).isEqualTo("{\"x\":1}");
        assertThat(call.at("/result/isError").asBoolean()).isFalse();
    }

    @Test
    void aVersionThisServerDoesNotSpeakIsRefusedWithTheVersionsItDoes() {
        McpProtocol.Reply r = mcp.handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":"
                + "{\"io.modelcontextprotocol/protocolVersion\":\"2030-01-01\"}}}", null, null);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.body().at("/error/code").asInt()).isEqualTo(-32022);
        assertThat(r.body().at("/error/data/supported/0").asText()).isEqualTo("2026-07-28");

        McpProtocol.Reply header = mcp.handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", "1999-01-01", null);
        assertThat(header.status()).isEqualTo(400);
        assertThat(header.body().at("/error/message").asText()).contains("MCP-Protocol-Version 1999-01-01");
    }

    @Test
    void anMcpMethodHeaderThatIsNotTheBodysMethodIsAHeaderMismatch() {
        McpProtocol.Reply r = mcp.handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", null, "tools/call");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.body().at("/error/code").asInt()).isEqualTo(-32020);
    }

    @Test
    void malformedMessagesGetTheJsonRpcErrorsThatSayWhatIsWrong() {
        McpProtocol.Reply notJson = mcp.handle("{\"jsonrpc\":", null, null);
        assertThat(notJson.status()).isEqualTo(400);
        assertThat(notJson.body().at("/error/code").asInt()).isEqualTo(-32700);
        assertThat(notJson.body().get("id").isNull()).isTrue();
        assertThat(mcp.handle("", null, null).body().at("/error/code").asInt()).isEqualTo(-32700);
        assertThat(post("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]").at("/error/message").asText())
                .contains("batches");
        assertThat(post("{\"id\":1,\"method\":\"ping\"}").at("/error/code").asInt()).isEqualTo(-32600);
        assertThat(post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}").at("/error/code").asInt()).isEqualTo(-32600);
        assertThat(post("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}").at("/error/code").asInt())
                .isEqualTo(-32600);
        assertThat(post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":[]}").at("/error/code").asInt())
                .isEqualTo(-32602);
        JsonNode unknown = post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\"}");
        assertThat(unknown.at("/error/code").asInt()).isEqualTo(-32601);
        assertThat(unknown.at("/error/message").asText()).contains("resources/list");
    }

    @Test
    void aFailureInsideTheServerIsAnInternalErrorThatShowsNoDetailOfIt() {
        McpProtocol.Reply r = mcp.handle("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":"
                + "{\"name\":\"broken\"}}", null, null);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body().at("/error/code").asInt()).isEqualTo(-32603);
        assertThat(r.body().at("/error/message").asText()).isEqualTo("tools/call failed inside the server"
                + " (IllegalStateException); try it again later");
        assertThat(r.body().get("id").asInt()).isEqualTo(9);
    }

    @Test
    void aToolCallWithoutANameOrForAnUnknownToolIsInvalidParams() {
        assertThat(post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{}}").at("/error/code")
                .asInt()).isEqualTo(-32602);
        assertThat(post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
                + "\"arguments\":[1]}}").at("/error/message").asText()).contains("arguments must be an object");
        JsonNode unknown = post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"rm\"}}");
        assertThat(unknown.at("/error/code").asInt()).isEqualTo(-32602);
        assertThat(unknown.at("/error/message").asText()).contains("unknown tool \"rm\"");
        JsonNode list = post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
        assertThat(list.at("/result/tools/0/name").asText()).isEqualTo("echo");
        assertThat(post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").get("result").isEmpty()).isTrue();
    }
}
