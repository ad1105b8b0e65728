package dev.cohort.lead;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.memory.tools.MemoryDeleteTool;
import dev.cohort.core.memory.tools.MemoryWriteTool;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.testing.IdentityContext;
import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.devstack.model.ScriptedModelClient;
import dev.cohort.lead.memory.PgMemoryStore;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * The lead's memories live in PostgreSQL per team with their author: "remember X" writes one, later turns see it,
 * quoted with who wrote it, in a {@code <memories>} block ahead of the conversation.
 */
@QuarkusTest
class LeadMemoryTest {

    @ConfigProperty(name = "cohort.devstack.model-admin-url", defaultValue = "http://127.0.0.1:1")
    String modelAdmin;

    @Inject
    AgroalDataSource ds;

    @Test
    void aRememberedPreferenceIsStoredPerTeamAndShownToLaterTurns() throws Exception {
        String team = "mem-" + UUID.randomUUID().toString().substring(0, 8);
        given().contentType("application/json").body(Map.of("id", team)).post("/api/v1/teams").then().statusCode(201);
        ScriptedModelClient model = new ScriptedModelClient(modelAdmin);
        model.load("""
                {"rules":[%2$s,
                  {"name":"remember-%1$s","match":{"agent":"%1$s/lead","lastMessage":"^remember that I indent with tabs$"},
                   "reply":{"toolCalls":[{"name":"memory_write","arguments":{"name":"Indentation Style","type":"user",
                     "description":"the user indents with tabs","body":"Always indent code with tabs, never spaces."}}]}},
                  {"name":"ack-%1$s","match":{"agent":"%1$s/lead","lastRole":"tool"},"reply":{"text":"noted"}},
                  {"name":"hello-%1$s","match":{"agent":"%1$s/lead","lastMessage":"^write a function$"},"reply":{"text":"ok"}}
                ]}""".formatted(team, ModelRules.MEMORY_RULE));
        String first = given().contentType("application/json").body(Map.of("text", "remember that I indent with tabs"))
                .post("/api/v1/teams/" + team + "/prompts").then().statusCode(202).extract().path("id");
        await().atMost(Duration.ofMinutes(3)).until(() -> memories(team).size() == 1);
        assertThat(memories(team)).containsExactly("indentation-style|USER|Always indent code with tabs, never spaces.");

        given().contentType("application/json").body(Map.of("text", "write a function"))
                .post("/api/v1/teams/" + team + "/prompts").then().statusCode(202);
        JsonNode later = await().atMost(Duration.ofMinutes(3)).until(() -> model.requests().stream()
                .filter(r -> r.path("rule").asText().equals("hello-" + team)).findFirst().orElse(null), r -> r != null);
        // the memory is stored with its author and shown as quoted data ahead of the conversation, not as the
        // operator's system prompt
        assertThat(new PgMemoryStore(ds, team).all()).singleElement()
                .satisfies(m -> assertThat(m.writtenBy()).isEqualTo(team + "/lead (memory_write)"));
        JsonNode messages = later.get("body").get("messages");
        assertThat(messages.get(0).get("content").asText()).doesNotContain("indentation-style")
                .doesNotContain("the user indents with tabs");
        assertThat(messages.get(1).get("role").asText()).isEqualTo("user");
        assertThat(messages.get(1).get("content").asText()).startsWith("<memories>\n")
                .contains("- indentation-style (user; written by " + team + "/lead (memory_write), ")
                .contains("): the user indents with tabs").endsWith("</memories>");
        assertThat(first).isNotBlank();
    }

    private static ToolCall memoryCall(String tool, String json) {
        return new ToolCall("call-" + UUID.randomUUID(), tool, (ObjectNode) Json.read(json, JsonNode.class));
    }

    private static final String TABS = """
            {"name":"prefers-tabs","type":"user","description":"tabs","body":"Indent with tabs."}""";

    @Test
    void aRepeatedMemoryWriteGetsTheFirstResultAndDoesNotOverwriteALaterChange() throws Exception {
        String team = "mem-idem-" + UUID.randomUUID().toString().substring(0, 8);
        MemoryWriteTool write = new MemoryWriteTool(t -> new PgMemoryStore(ds, t));
        ToolCall first = memoryCall("memory_write", TABS);
        assertThat(write.execute(first, IdentityContext.lead(team))).isEqualTo(ToolResult.ok("Saved memory 'prefers-tabs' (user)."));
        ToolCall second = memoryCall("memory_write", """
                {"name":"prefers-tabs","type":"user","description":"tabs","body":"Tabs, width 4."}""");
        write.execute(second, IdentityContext.lead(team));

        ToolResult repeat = write.execute(first, IdentityContext.lead(team)); // the resumed turn's repeat

        assertThat(repeat).isEqualTo(ToolResult.ok("Saved memory 'prefers-tabs' (user)."));
        assertThat(memories(team)).containsExactly("prefers-tabs|USER|Tabs, width 4.");
        assertThat(effects(team)).containsExactly(first.id() + "|memory_write|Saved memory 'prefers-tabs' (user).",
                second.id() + "|memory_write|Updated memory 'prefers-tabs' (user).");
    }

    @Test
    void aRepeatedMemoryDeleteSaysDeletedAndAReusedIdIsRefused() throws Exception {
        String team = "mem-idem-" + UUID.randomUUID().toString().substring(0, 8);
        MemoryWriteTool write = new MemoryWriteTool(t -> new PgMemoryStore(ds, t));
        MemoryDeleteTool forget = new MemoryDeleteTool(t -> new PgMemoryStore(ds, t));
        write.execute(memoryCall("memory_write", TABS), IdentityContext.lead(team));
        ToolCall delete = memoryCall("memory_delete", "{\"name\":\"prefers-tabs\"}");
        assertThat(forget.execute(delete, IdentityContext.lead(team))).isEqualTo(ToolResult.ok("Deleted memory 'prefers-tabs'."));
        write.execute(memoryCall("memory_write", TABS), IdentityContext.lead(team)); // remembered again since

        ToolResult repeat = forget.execute(delete, IdentityContext.lead(team));
        ToolResult reused = write.execute(new ToolCall(delete.id(), "memory_write", (ObjectNode) Json.read(TABS,
                JsonNode.class)), IdentityContext.lead(team));

        assertThat(repeat).isEqualTo(ToolResult.ok("Deleted memory 'prefers-tabs'."));
        assertThat(reused.rule()).isEqualTo(EffectKey.REUSED_RULE);
        assertThat(reused.content()).contains("for a different call (memory_delete); this memory_write call was not run");
        assertThat(memories(team)).containsExactly("prefers-tabs|USER|Indent with tabs.");
    }

    /** The team's recorded call results: {@code callId|tool|result}, in recording order. */
    private List<String> effects(String team) throws Exception {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT call_id, tool, result FROM lead.tool_effects WHERE team = ? ORDER BY created_at, call_id")) {
            ps.setString(1, team);
            try (ResultSet rs = ps.executeQuery()) {
                List<String> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getString(3));
                }
                return out;
            }
        }
    }

    private List<String> memories(String team) throws Exception {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT name, type, body FROM lead.memories WHERE team = ? ORDER BY name")) {
            ps.setString(1, team);
            try (ResultSet rs = ps.executeQuery()) {
                List<String> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getString(3));
                }
                return out;
            }
        }
    }
}
