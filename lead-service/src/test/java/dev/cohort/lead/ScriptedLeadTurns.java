package dev.cohort.lead;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.devstack.model.ScriptedModelClient;
import dev.cohort.lead.events.EventRepository;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Turns of a team's lead on the scripted model, through the public API: a team made, a prompt sent, the lead's scripted
 * tool calls, its events, its tool results as the model received them. Shared by the end-to-end tests of team rules
 * and MCP servers.
 */
public final class ScriptedLeadTurns {
    private final ScriptedModelClient model;
    private final EventRepository events;

    public ScriptedLeadTurns(ScriptedModelClient model, EventRepository events) {
        this.model = model;
        this.events = events;
    }

    /** A new team named {@code prefix-<random>}. */
    public static String newTeam(String prefix) {
        String team = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        given().contentType("application/json").body("{\"id\":\"" + team + "\"}").post("/api/v1/teams").then()
                .statusCode(201);
        return team;
    }

    /** Sends {@code text} to the team's lead; the prompt's id. */
    public static String prompt(String team, String text) {
        return given().contentType("application/json").body(Map.of("text", text))
                .post("/api/v1/teams/" + team + "/prompts").then().statusCode(202).extract().path("id");
    }

    /** The team's lead answers the prompt {@code text} with {@code calls} (a JSON array), then says "finished". */
    public void calls(String team, String text, String calls) {
        model.append("{\"rules\":[{\"name\":\"" + team + "-" + text + "\",\"match\":{\"agent\":\"" + team
                + "/lead\",\"lastMessage\":\"^" + text + "$\"},\"reply\":{\"toolCalls\":" + calls + "}},"
                + "{\"name\":\"after-" + team + "-" + text + "\",\"match\":{\"agent\":\"" + team
                + "/lead\",\"lastRole\":\"tool\"},\"reply\":{\"text\":\"finished\"}}]}");
    }

    /** The team's stored events of {@code type}, in order. */
    public List<JsonNode> events(String team, String type) {
        return events.after(team, 0, 100_000).stream().map(e -> (JsonNode) Json.MAPPER.valueToTree(e))
                .filter(e -> e.path("type").asText().equals(type)).toList();
    }

    /** Waits for the turn that answered {@code promptId} and checks that it completed. */
    public void awaitTurnCompleted(String team, String promptId) {
        JsonNode done = await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(300))
                .until(() -> events(team, "turn_completed").stream()
                        .filter(e -> promptId.equals(e.path("promptId").asText())).findFirst()
                        .orElse(null), e -> e != null);
        assertThat(done.path("data").path("status").asText()).isEqualTo("completed");
    }

    /** The team's lead's last model request (memory extraction's left out). */
    public JsonNode lastRequest(String team) {
        List<JsonNode> reqs = model.requests().stream().filter(r -> (team + "/lead").equals(r.path("agent").asText()))
                .filter(r -> !ModelRules.isMemoryRequest(r)).toList();
        return reqs.get(reqs.size() - 1);
    }

    /** The tool results the team's lead sent in its last request (its whole conversation's), in order. */
    public List<String> toolResults(String team) {
        List<String> out = new ArrayList<>();
        for (JsonNode m : lastRequest(team).path("body").path("messages")) {
            if ("tool".equals(m.path("role").asText())) {
                out.add(m.path("content").asText());
            }
        }
        return out;
    }

    public static String last(List<String> l) {
        return l.get(l.size() - 1);
    }
}
