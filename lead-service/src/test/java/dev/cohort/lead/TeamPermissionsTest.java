package dev.cohort.lead;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.permission.PermissionRuleSet;
import dev.cohort.core.protocol.Json;
import dev.cohort.devstack.model.ScriptedModelClient;
import dev.cohort.host.client.LeadInternalClient;
import dev.cohort.lead.events.EventRepository;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A team's permission rules end to end, on real parts (the lead, the tool runner, PostgreSQL, the scripted model):
 * {@code GET/PUT …/permissions}, the rules reaching teammates through the internal API, the scenario (deny
 * {@code Bash(curl:*)}, allow {@code Bash(npm test)}, ask {@code Edit(src/**)}) observed through the model's tool
 * results, the events and the approvals API, and the rules of the workspace's {@code .cohort/settings.json}.
 */
@QuarkusTest
class TeamPermissionsTest {

    @ConfigProperty(name = "cohort.devstack.model-admin-url", defaultValue = "http://127.0.0.1:1")
    String modelAdmin;

    @ConfigProperty(name = "cohort.test.workspace", defaultValue = "/nonexistent")
    String workspace;

    @Inject
    EventRepository eventStore;

    @Inject
    LeadInternalClient internal;

    ScriptedModelClient model;

    @BeforeEach
    void setUp() {
        model = new ScriptedModelClient(modelAdmin);
        model.load("{\"rules\":[" + ModelRules.MEMORY_RULE + "]}");
    }

    @Test
    void thePutRulesAreValidatedStoredShownAndHandedToTeammates() {
        String team = newTeam("perm-api");
        given().get(path(team)).then().statusCode(200).body("allow", empty()).body("deny", empty())
                .body("settingsFile.path", equalTo(".cohort/settings.json")).body("settingsFile.error", nullValue())
                .body("inForce.deny", empty());

        given().contentType("application/json").body("""
                {"allow": ["Bash(npm test)"], "ask": ["Edit(src/**)"], "deny": ["Bash(curl:*)"]}""")
                .put(path(team)).then().statusCode(200)
                .body("allow", equalTo(List.of("Bash(npm test)"))).body("ask", equalTo(List.of("Edit(src/**)")))
                .body("deny", equalTo(List.of("Bash(curl:*)"))).body("inForce.deny", equalTo(List.of("Bash(curl:*)")));

        // a malformed rule is a 400 naming it and why; the stored rules stay
        given().contentType("application/json").body("{\"deny\": [\"Bash(curl:*)\", \"Read(//etc/**)\"]}")
                .put(path(team)).then().statusCode(400).contentType("application/problem+json")
                .body("detail", equalTo("invalid permission rules: permissions.deny[1] 'Read(//etc/**)': Cohort's"
                        + " file tools reach only the team's workspace: write the path relative to it, e.g."
                        + " './secrets/**' (not '//…' or '~/…')"));
        given().contentType("application/json").body("{\"defaultMode\": \"plan\"}").put(path(team)).then()
                .statusCode(400).body("detail", containsString("permissions.defaultMode is not supported"));
        given().contentType("application/json").body("{\"allow\": [\"WebFetch\"]}").put(path(team)).then()
                .statusCode(400).body("detail", containsString("permissions.allow[0] 'WebFetch': Cohort has no tool"));
        given().contentType("application/json").body("[]").put(path(team)).then().statusCode(400);
        given().get(path(team)).then().statusCode(200).body("deny", equalTo(List.of("Bash(curl:*)")));

        // what a teammate host reads of its team (GET /internal/v1/teams/{team}): the same rules
        assertThat(internal.team(team).permissions()).isEqualTo(new PermissionRuleSet(List.of("Bash(npm test)"),
                List.of("Edit(src/**)"), List.of("Bash(curl:*)")));

        given().contentType("application/json").body("{}").put(path(team)).then().statusCode(200)
                .body("deny", empty());
        assertThat(internal.team(team).permissions()).isEqualTo(PermissionRuleSet.EMPTY);
        given().get(path("no-such-team")).then().statusCode(404);
        given().contentType("application/json").body("{}").put(path("no-such-team")).then().statusCode(404);
    }

    @Test
    void theScenarioDeniesCurlRunsNpmTestWithoutAskingAndAsksForAnEditUnderSrc() throws Exception {
        String team = newTeam("perm-e2e");
        given().contentType("application/json").body("""
                {"allow": ["Bash(npm test)"], "ask": ["Edit(src/**)"], "deny": ["Bash(curl:*)"]}""")
                .put(path(team)).then().statusCode(200);
        calls(team, "go", """
                [{"id":"c1","name":"bash","arguments":{"command":"curl -s http://127.0.0.1:9/"}},
                 {"id":"c2","name":"bash","arguments":{"command":"npm test"}},
                 {"id":"c3","name":"write_file","arguments":{"path":"src/app.js","content":"ok"}}]""");
        String prompt = prompt(team, "go");

        // ask: the edit under src/ waits for a person (the default mode would have written it at once)
        JsonNode asked = await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(300))
                .until(() -> events(team, "approval_requested").stream().findFirst().orElse(null), e -> e != null);
        assertThat(asked.path("data").path("tool").asText()).isEqualTo("write_file");
        assertThat(asked.path("data").path("reason").asText())
                .isEqualTo("the team rule ask Edit(src/**) (team settings) for 'src/app.js'");
        Path app = Path.of(workspace, "teams", team, "src", "app.js");
        assertThat(app).doesNotExist();
        given().contentType("application/json").body(Map.of("approve", true))
                .post("/api/v1/teams/" + team + "/approvals/" + asked.path("data").path("approvalId").asText())
                .then().statusCode(200);
        awaitTurnCompleted(team, prompt);
        assertThat(app).hasContent("ok");

        List<String> results = toolResults(team);
        // deny: the model is told which rule refused the call
        assertThat(results.get(0)).isEqualTo("Error: permission denied by rule 'rule:deny Bash(curl:*)': denied by the"
                + " team rule deny Bash(curl:*) (team settings) for 'curl -s http://127.0.0.1:9/'");
        // allow: npm test ran (whatever npm answered in the sandbox), with no approval asked for it
        assertThat(results.get(1)).doesNotContain("permission denied");
        assertThat(events(team, "approval_requested")).singleElement()
                .satisfies(e -> assertThat(e.path("data").path("tool").asText()).isEqualTo("write_file"));
        assertThat(events(team, "tool_call_finished")).extracting(e -> e.path("data").path("tool").asText()
                + " " + e.path("data").path("error").asBoolean()).contains("bash true", "write_file false");
    }

    @Test
    void theSettingsFilesRulesApplyAndABadRuleKeepsTheLastGoodOnesWithAnErrorEvent() throws Exception {
        String team = newTeam("perm-file");
        Path settings = Files.createDirectories(Path.of(workspace, "teams", team, ".cohort")).resolve("settings.json");
        Files.writeString(settings, "{\"permissions\": {\"deny\": [\"Bash(curl:*)\"]}}");
        calls(team, "first", "[{\"id\":\"c1\",\"name\":\"bash\",\"arguments\":{\"command\":\"curl http://127.0.0.1:9/\"}}]");
        awaitTurnCompleted(team, prompt(team, "first"));
        assertThat(last(toolResults(team))).isEqualTo("Error: permission denied by rule 'rule:deny Bash(curl:*)':"
                + " denied by the team rule deny Bash(curl:*) (.cohort/settings.json) for 'curl http://127.0.0.1:9/'");
        given().get(path(team)).then().statusCode(200).body("settingsFile.deny", equalTo(List.of("Bash(curl:*)")))
                .body("deny", empty()).body("inForce.deny", equalTo(List.of("Bash(curl:*)")));

        // broken by a person: the file's last good rules stay in force, and an error event says so
        Files.writeString(settings, "{\"permissions\": {\"deny\": [\"Bash(curl:*\"]}}");
        calls(team, "second", "[{\"id\":\"c2\",\"name\":\"bash\",\"arguments\":{\"command\":\"curl http://127.0.0.1:9/\"}}]");
        awaitTurnCompleted(team, prompt(team, "second"));

        assertThat(last(toolResults(team))).startsWith("Error: permission denied by rule 'rule:deny Bash(curl:*)'");
        assertThat(events(team, "error")).singleElement().satisfies(e -> {
            assertThat(e.path("data").path("file").asText()).isEqualTo(".cohort/settings.json");
            assertThat(e.path("data").path("message").asText()).isEqualTo("invalid .cohort/settings.json:"
                    + " permissions.deny[0] 'Bash(curl:*': the specifier misses its closing ')'; the last valid"
                    + " permission rules of it stay in force (0 allow, 0 ask, 1 deny)");
        });
        given().get(path(team)).then().statusCode(200).body("settingsFile.deny", equalTo(List.of("Bash(curl:*)")))
                .body("settingsFile.error", containsString("permissions.deny[0] 'Bash(curl:*'"));
    }

    // --- helpers

    private static String path(String team) {
        return "/api/v1/teams/" + team + "/permissions";
    }

    private static String newTeam(String prefix) {
        String team = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        given().contentType("application/json").body("{\"id\":\"" + team + "\"}").post("/api/v1/teams").then()
                .statusCode(201);
        return team;
    }

    private static String prompt(String team, String text) {
        return given().contentType("application/json").body(Map.of("text", text))
                .post("/api/v1/teams/" + team + "/prompts").then().statusCode(202).extract().path("id");
    }

    /** The team's lead answers the prompt {@code text} with {@code calls} (a JSON array), then says "finished". */
    private void calls(String team, String text, String calls) {
        model.append("{\"rules\":[{\"name\":\"" + team + "-" + text + "\",\"match\":{\"agent\":\"" + team
                + "/lead\",\"lastMessage\":\"^" + text + "$\"},\"reply\":{\"toolCalls\":" + calls + "}},"
                + "{\"name\":\"after-" + team + "-" + text + "\",\"match\":{\"agent\":\"" + team
                + "/lead\",\"lastRole\":\"tool\"},\"reply\":{\"text\":\"finished\"}}]}");
    }

    private List<JsonNode> events(String team, String type) {
        return eventStore.after(team, 0, 100_000).stream().map(e -> (JsonNode) Json.MAPPER.valueToTree(e))
                .filter(e -> e.path("type").asText().equals(type)).toList();
    }

    private void awaitTurnCompleted(String team, String promptId) {
        JsonNode done = await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(300))
                .until(() -> events(team, "turn_completed").stream()
                        .filter(e -> promptId.equals(e.path("promptId").asText())).findFirst()
                        .orElse(null), e -> e != null);
        assertThat(done.path("data").path("status").asText()).isEqualTo("completed");
    }

    /** The tool results the team's lead sent in its last request (its whole conversation's), in order. */
    private List<String> toolResults(String team) {
        List<JsonNode> reqs = model.requests().stream().filter(r -> (team + "/lead").equals(r.path("agent").asText()))
                .filter(r -> !ModelRules.isMemoryRequest(r)).toList();
        JsonNode messages = reqs.get(reqs.size() - 1).path("body").path("messages");
        List<String> out = new ArrayList<>();
        for (JsonNode m : messages) {
            if ("tool".equals(m.path("role").asText())) {
                out.add(m.path("content").asText());
            }
        }
        return out;
    }

    private static String last(List<String> l) {
        return l.get(l.size() - 1);
    }
}
