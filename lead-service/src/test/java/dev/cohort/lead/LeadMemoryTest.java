package dev.cohort.lead;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.devstack.model.ScriptedModelClient;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/** The lead's memories live in PostgreSQL per team: "remember X" writes one, later turns see it in their prompt. */
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
        await().atMost(Duration.ofSeconds(60)).until(() -> memories(team).size() == 1);
        assertThat(memories(team)).containsExactly("indentation-style|USER|Always indent code with tabs, never spaces.");

        given().contentType("application/json").body(Map.of("text", "write a function"))
                .post("/api/v1/teams/" + team + "/prompts").then().statusCode(202);
        JsonNode later = await().atMost(Duration.ofSeconds(60)).until(() -> model.requests().stream()
                .filter(r -> r.path("rule").asText().equals("hello-" + team)).findFirst().orElse(null), r -> r != null);
        String system = later.get("body").get("messages").get(0).get("content").asText();
        assertThat(system).contains("indentation-style");
        assertThat(first).isNotBlank();
    }

    private List<String> memories(String team) throws Exception {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT name, type, body FROM lead.memories WHERE team = ? ORDER BY name")) {
            ps.setString(1, team);
            try (ResultSet rs = ps.executeQuery()) {
                List<String> out = new java.util.ArrayList<>();
                while (rs.next()) {
                    out.add(rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getString(3));
                }
                return out;
            }
        }
    }
}
