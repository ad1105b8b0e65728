package dev.cohort.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.tools.mcp.McpTool;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonRawSchema;
import dev.langchain4j.model.chat.request.json.JsonStringSchema;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code mcpServers} configuration: what is accepted, what is refused and how it is named, and its secrets. */
class McpServersTest {

    private static JsonNode json(String s) {
        return Json.read(s, JsonNode.class);
    }

    private static Map<String, McpServerConfig> parse(String s) {
        return McpServers.parse(json(s), "mcpServers", "api");
    }

    private static void refused(String config, String field, String why) {
        assertThatThrownBy(() -> parse(config)).isInstanceOf(McpServers.InvalidConfig.class)
                .satisfies(e -> assertThat(((McpServers.InvalidConfig) e).field()).isEqualTo(field))
                .hasMessageContaining(why);
    }

    @Test
    void claudeCodesShapeIsRead() {
        Map<String, McpServerConfig> s = parse("""
                {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
                        "env": {"DEBUG": "1"}},
                 "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/",
                            "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}, "agents": ["lead", "alice"]}}""");
        assertThat(s.keySet()).containsExactly("fs", "github");
        assertThat(s.get("fs").type()).isEqualTo("stdio");
        assertThat(s.get("fs").args()).containsExactly("-y", "@modelcontextprotocol/server-filesystem", ".");
        assertThat(s.get("github").remote()).isTrue();
        assertThat(s.get("github").servesAgent("alice")).isTrue();
        assertThat(s.get("github").servesAgent("bob")).isFalse();
        assertThat(s.get("fs").servesAgent("bob")).isTrue();
        assertThat(McpServers.parse(null, "mcpServers", "api")).isEmpty();
        // written back as read
        assertThat(McpServers.parse(McpServers.toJson(s), "mcpServers", "api")).isEqualTo(s);
    }

    @Test
    void everyWrongFieldIsNamed() {
        refused("[]", "mcpServers", "must be an object");
        refused("{\"a__b\": {\"command\": \"x\"}}", "mcpServers.a__b", "a server's name");
        refused("{\"x\": {}}", "mcpServers.x.command", "required");
        refused("{\"x\": {\"command\": \"\"}}", "mcpServers.x.command", "required");
        refused("{\"x\": {\"command\": \"c\", \"args\": \"-y\"}}", "mcpServers.x.args", "array of strings");
        refused("{\"x\": {\"command\": \"c\", \"args\": [1]}}", "mcpServers.x.args[0]", "must be a string");
        refused("{\"x\": {\"command\": \"c\", \"env\": []}}", "mcpServers.x.env", "object of strings");
        refused("{\"x\": {\"command\": \"c\", \"env\": {\"A-B\": \"v\"}}}", "mcpServers.x.env.A-B", "variable");
        refused("{\"x\": {\"type\": \"stdio\", \"command\": \"c\", \"url\": \"http://h\"}}", "mcpServers.x.url",
                "unknown field");
        refused("{\"x\": {\"type\": \"sse\", \"url\": \"http://h\"}}", "mcpServers.x.type", "SSE");
        refused("{\"x\": {\"type\": \"http\"}}", "mcpServers.x.url", "required");
        refused("{\"x\": {\"type\": \"http\", \"url\": \"ftp://h/x\"}}", "mcpServers.x.url", "http:// or https://");
        refused("{\"x\": {\"type\": \"http\", \"url\": \"http://h\", \"headers\": {\"A\": 1}}}",
                "mcpServers.x.headers.A", "must be a string");
        refused("{\"x\": {\"command\": \"c\", \"agents\": [\"Not An Agent\"]}}", "mcpServers.x.agents[0]", "agent");
    }

    @Test
    void storedSecretsAreNeverShownAndAreKeptWhenSentBackAsStored() {
        Map<String, McpServerConfig> stored = parse("""
                {"gh": {"type": "http", "url": "https://h/mcp", "headers": {"Authorization": "Bearer ghp_literal",
                        "X-Ref": "Bearer ${GITHUB_TOKEN}"}}}""");
        McpServerConfig shown = stored.get("gh").redacted();
        assertThat(shown.headers()).containsEntry("Authorization", McpServers.STORED)
                .containsEntry("X-Ref", "Bearer ${GITHUB_TOKEN}");
        assertThat(Json.write(shown)).doesNotContain("ghp_literal");
        assertThat(stored.get("gh").toString()).doesNotContain("ghp_literal");

        Map<String, McpServerConfig> next = McpServers.keepStored(McpServers.parse(
                McpServers.toJson(Map.of("gh", shown)), "mcpServers", "api"), stored, "mcpServers");
        assertThat(next.get("gh").headers()).containsEntry("Authorization", "Bearer ghp_literal");
        assertThatThrownBy(() -> McpServers.keepStored(parse("{\"n\": {\"command\": \"c\", \"env\": {\"T\": \""
                + McpServers.STORED + "\"}}}"), stored, "mcpServers"))
                .isInstanceOf(McpServers.InvalidConfig.class).hasMessageContaining("mcpServers.n.env.T");
    }

    @Test
    void variablesAreResolvedWhereTheServerRunsAndAnUnsetOneIsNamed() {
        Map<String, String> env = Map.of("GITHUB_TOKEN", "t0k3n");
        assertThat(McpServers.resolve("Bearer ${GITHUB_TOKEN}", env::get, "h")).isEqualTo("Bearer t0k3n");
        assertThat(McpServers.resolve("${NOPE:-fallback}", env::get, "h")).isEqualTo("fallback");
        assertThat(McpServers.resolve("plain", env::get, "h")).isEqualTo("plain");
        assertThatThrownBy(() -> McpServers.resolve("${NOPE}", env::get, "env.X of server s"))
                .isInstanceOf(McpServers.UnsetVariable.class).hasMessageContaining("NOPE")
                .hasMessageContaining("env.X of server s");
    }

    @Test
    void theFileServersComeFirstAndTheTeamsReplaceThemByName() {
        Map<String, McpServerConfig> file = McpServers.parse(json("{\"a\": {\"command\": \"file-a\"}, \"b\":"
                + " {\"command\": \"file-b\", \"agents\": [\"lead\"]}}"), "mcpServers", "settings");
        Map<String, McpServerConfig> team = parse("{\"a\": {\"command\": \"team-a\"}}");
        assertThat(McpServers.forAgent(file, team, "lead")).extracting(McpServerConfig::command)
                .containsExactly("team-a", "file-b");
        assertThat(McpServers.forAgent(file, team, "alice")).extracting(McpServerConfig::command)
                .containsExactly("team-a");
    }

    @Test
    void aServersSchemaIsOfferedAsWrittenWhereTheEngineDoesNotCheckIt() {
        JsonObjectSchema p = McpTool.parameters(json("""
                {"type": "object", "properties": {"path": {"type": "string"},
                 "edits": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "object"}]}}},
                 "required": ["path"]}"""));
        assertThat(p.properties().get("path")).isInstanceOf(JsonStringSchema.class);
        assertThat(p.properties().get("edits")).isInstanceOf(JsonRawSchema.class);
        assertThat(p.required()).containsExactly("path");
        assertThat(McpTool.parameters(null).additionalProperties()).isTrue();

        McpServerConfig s = parse("{\"srv\": {\"command\": \"c\"}}").get("srv");
        assertThat(McpTool.of(s, new McpToolInfo("read", "Reads", null, true), null)).get()
                .satisfies(t -> {
                    assertThat(t.name()).isEqualTo("mcp__srv__read");
                    assertThat(t.isMutating()).isFalse();
                    assertThat(t.spec().description()).contains("MCP server srv").contains("Reads");
                });
        assertThat(McpTool.of(s, new McpToolInfo("has space", null, null, false), null)).isEmpty();
        assertThat(McpTool.of(s, new McpToolInfo("x".repeat(60), null, null, false), null)).isEmpty();
        assertThat(List.of(McpTool.of(s, new McpToolInfo("w", null, null, false), null).orElseThrow()
                .permissionSubject(Json.MAPPER.createObjectNode()).toString())).anyMatch(x -> x.contains("mcp-tool"));
    }
}
