package dev.cohort.lead;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.devstack.model.ScriptedModelClient;
import dev.cohort.lead.events.EventRepository;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Hooks through the lead, on real parts: team hooks set over the API, the workspace's {@code .cohort/settings.json},
 * both run by the real tool runner with the event JSON on stdin; built-in hooks as CDI beans ({@link ProbeHooks}).
 * Same Quarkus profile as the other lead tests (no extra boot). Each test uses its own team.
 */
@QuarkusTest
class LeadHooksTest {

    @ConfigProperty(name = "cohort.devstack.model-admin-url", defaultValue = "http://127.0.0.1:1")
    String modelAdmin;

    @ConfigProperty(name = "cohort.test.workspace", defaultValue = "/nonexistent")
    String workspace;

    @TestHTTPResource("/")
    URL base;

    ScriptedModelClient model;

    @BeforeEach
    void setUp() {
        model = new ScriptedModelClient(modelAdmin);
        model.load("{\"rules\":[" + ModelRules.MEMORY_RULE + "]}");
    }

    @Test
    void aPreToolUseHookFromTheTeamSettingsBlocksBashWithItsStderrAsTheReason() {
        String team = newTeam("hook-team", """
                {"PreToolUse": [{"matcher": "bash", "hooks": [{"type": "command",
                  "command": "grep -q 'touch ran.txt' && { echo 'no touching today' >&2; echo stdout-$((6*7)); exit 2; }; exit 0",
                  "timeout": 30}]}]}""");
        given().get("/api/v1/teams/" + team).then().statusCode(200)
                .body("hooks.PreToolUse[0].hooks[0].timeout", equalTo(30));
        oneCall(team, "go", "bash", Map.of("command", "touch ran.txt"));

        awaitTurnCompleted(team, prompt(team, "go"));

        assertThat(Path.of(workspace, "teams", team, "ran.txt")).doesNotExist();
        assertThat(lastToolResultSentBy(team)).contains("blocked by PreToolUse hook").contains("(team settings)")
                .endsWith(": no touching today").doesNotContain("stdout-42");
    }

    @Test
    void aHookInTheWorkspaceSettingsFileBlocksAWrite() throws Exception {
        String team = newTeam("hook-ws", null);
        Path ws = Files.createDirectories(Path.of(workspace, "teams", team, ".cohort")).getParent();
        Files.writeString(ws.resolve(".cohort/settings.json"), """
                {"hooks": {"PreToolUse": [{"matcher": "write_file|edit_file", "hooks": [
                   {"type": "command", "command": "echo 'the workspace is frozen' >&2; exit 2"}]}]}}""");
        oneCall(team, "write it", "write_file", Map.of("path", "new.txt", "content", "x"));

        awaitTurnCompleted(team, prompt(team, "write it"));

        assertThat(ws.resolve("new.txt")).doesNotExist();
        assertThat(lastToolResultSentBy(team)).contains("(.cohort/settings.json): the workspace is frozen");
    }

    @Test
    void aTwoHundredKilobytePostToolUsePayloadReachesTheHookOnStdin() throws Exception {
        String team = newTeam("hook-big", """
                {"PostToolUse": [{"matcher": "write_file", "hooks": [{"command": "cat > post-event.json"}]}]}""");
        String content = "0123456789".repeat(20_000) + "'\"$(end)";
        oneCall(team, "write big", "write_file", Map.of("path", "big.txt", "content", content));

        awaitTurnCompleted(team, prompt(team, "write big"));

        Path seen = Path.of(workspace, "teams", team, "post-event.json");
        assertThat(Files.size(seen)).isGreaterThan(200_000);
        JsonNode event = Json.MAPPER.readTree(Files.readString(seen));
        assertThat(event.path("hook_event_name").asText()).isEqualTo("PostToolUse");
        assertThat(event.path("tool_name").asText()).isEqualTo("write_file");
        assertThat(event.path("tool_input").path("content").asText()).isEqualTo(content);
        assertThat(event.path("tool_response").asText()).contains("big.txt");
        assertThat(event.path("team").asText()).isEqualTo(team);
    }

    @Test
    void aPreToolUseHookThatTimesOutFailsClosedAndAnErrorEventReportsIt() {
        String team = newTeam("hook-slow", """
                {"PreToolUse": [{"hooks": [{"type": "command", "command": "sleep 60", "timeout": 1}]}]}""");
        oneCall(team, "go", "bash", Map.of("command", "touch ran.txt"));

        awaitTurnCompleted(team, prompt(team, "go"));

        assertThat(Path.of(workspace, "teams", team, "ran.txt")).doesNotExist();
        assertThat(lastToolResultSentBy(team)).contains("timed out after 1 s").contains("the call was not run");
        assertThat(storedEvents(team)).filteredOn(e -> e.path("type").asText().equals("error")).anySatisfy(e -> {
            assertThat(e.path("data").path("hookEvent").asText()).isEqualTo("PreToolUse");
            assertThat(e.path("data").path("blocked").asBoolean()).isTrue();
            assertThat(e.path("data").path("message").asText()).contains("`sleep 60`").contains("timed out after 1 s");
        });
    }

    @Test
    void builtInCdiHooksRunInPriorityOrder() {
        String team = newTeam("hook-cdi", null);
        oneCall(team, "probe", "bash", Map.of("command", "echo " + ProbeHooks.PROBE));

        awaitTurnCompleted(team, prompt(team, "probe"));

        assertThat(ProbeHooks.RAN.get(team)).containsExactly("priority -10", "priority 20", "priority 30");
        assertThat(lastToolResultSentBy(team)).contains(ProbeHooks.PROBE);
    }

    @Test
    void badHooksAreRefusedNamingTheFieldAndPutReplacesThem() {
        String bad = "{\"id\":\"hook-bad-" + UUID.randomUUID().toString().substring(0, 8) + "\",\"hooks\":%s}";
        given().contentType("application/json").body(bad.formatted("{\"Notification\":[]}")).post("/api/v1/teams")
                .then().statusCode(400).contentType("application/problem+json")
                .body("detail", containsString("hooks.Notification: unknown event"));
        given().contentType("application/json")
                .body(bad.formatted("{\"PreToolUse\":[{\"matcher\":\"(bash\",\"hooks\":[{\"command\":\"x\"}]}]}"))
                .post("/api/v1/teams").then().statusCode(400).body("detail", containsString("hooks.PreToolUse[0].matcher: invalid regex"));
        given().contentType("application/json").body(bad.formatted("{\"Stop\":[{\"hooks\":[{\"type\":\"command\"}]}]}"))
                .post("/api/v1/teams").then().statusCode(400).body("detail", containsString("hooks.Stop[0].hooks[0].command: required"));
        given().contentType("application/json")
                .body(bad.formatted("{\"Stop\":[{\"hooks\":[{\"command\":\"x\",\"timeout\":3600}]}]}"))
                .post("/api/v1/teams").then().statusCode(400).body("detail", containsString("hooks.Stop[0].hooks[0].timeout"));

        String team = newTeam("hook-put", null);
        given().get("/api/v1/teams/" + team + "/hooks").then().statusCode(200).body("size()", equalTo(0));
        given().contentType("application/json").body("{\"UserPromptSubmit\":[{\"hooks\":[{\"command\":\"date\"}]}]}")
                .put("/api/v1/teams/" + team + "/hooks").then().statusCode(200)
                .body("UserPromptSubmit[0].hooks[0].command", equalTo("date"));
        given().contentType("application/json").body("{\"PreToolUse\":[{\"hooks\":[{\"command\":\"\"}]}]}")
                .put("/api/v1/teams/" + team + "/hooks").then().statusCode(400)
                .body("detail", containsString("hooks.PreToolUse[0].hooks[0].command"));
        given().get("/api/v1/teams/" + team + "/hooks").then().statusCode(200)
                .body("UserPromptSubmit[0].hooks[0].command", equalTo("date"));
        given().contentType("application/json").body("{}").put("/api/v1/teams/" + team + "/hooks").then().statusCode(200)
                .body("size()", equalTo(0));
        given().contentType("application/json").body("{}").put("/api/v1/teams/no-such-team/hooks").then().statusCode(404);
    }

    // --- helpers

    private static String newTeam(String prefix, String hooksJson) {
        String team = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        String body = "{\"id\":\"" + team + "\"" + (hooksJson == null ? "" : ",\"hooks\":" + hooksJson) + "}";
        given().contentType("application/json").body(body).post("/api/v1/teams").then().statusCode(201);
        return team;
    }

    private static String prompt(String team, String text) {
        return given().contentType("application/json").body(Map.of("text", text))
                .post("/api/v1/teams/" + team + "/prompts").then().statusCode(202).extract().path("id");
    }

    /** The team's lead answers {@code text} with one tool call, then says "finished". */
    private void oneCall(String team, String text, String tool, Map<String, Object> args) {
        String call = Json.write(Map.of("name", tool, "arguments", args));
        model.append("{\"rules\":[{\"name\":\"call-" + team + "\",\"match\":{\"agent\":\"" + team + "/lead\",\"lastMessage\":\"^"
                + text + "$\"},\"reply\":{\"toolCalls\":[" + call + "]}},"
                + "{\"name\":\"after-" + team + "\",\"match\":{\"agent\":\"" + team + "/lead\",\"lastRole\":\"tool\"},"
                + "\"reply\":{\"text\":\"finished\"}}]}");
    }

    @Inject
    EventRepository eventStore;

    /** The team's events as stored (the source of truth SSE replays from), in seq order, as clients see them. */
    private List<JsonNode> storedEvents(String team) {
        return eventStore.after(team, 0, 100_000).stream().map(e -> (JsonNode) Json.MAPPER.valueToTree(e)).toList();
    }

    private JsonNode awaitTurnCompleted(String team, String promptId) {
        JsonNode done = await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(300))
                .until(() -> storedEvents(team).stream().filter(e -> e.get("type").asText().equals("turn_completed"))
                        .filter(e -> promptId.equals(e.path("promptId").asText())).findFirst().orElse(null),
                        e -> e != null);
        assertThat(done.path("data").path("status").asText()).isEqualTo("completed");
        return done;
    }

    private String lastToolResultSentBy(String team) {
        List<JsonNode> reqs = model.requests().stream().filter(r -> (team + "/lead").equals(r.path("agent").asText()))
                .filter(r -> !ModelRules.isMemoryRequest(r)).toList();
        JsonNode messages = reqs.get(reqs.size() - 1).get("body").get("messages");
        for (int i = messages.size() - 1; i >= 0; i--) {
            if ("tool".equals(messages.get(i).path("role").asText())) {
                return messages.get(i).path("content").asText();
            }
        }
        return "";
    }
}
