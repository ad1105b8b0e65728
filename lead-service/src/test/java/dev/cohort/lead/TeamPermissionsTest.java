package dev.cohort.lead;

import static dev.cohort.lead.ScriptedLeadTurns.last;
import static dev.cohort.lead.ScriptedLeadTurns.newTeam;
import static dev.cohort.lead.ScriptedLeadTurns.prompt;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.permission.PermissionRuleSet;
import dev.cohort.core.mcp.McpServerConfig;
import dev.cohort.core.protocol.Json;
import dev.cohort.devstack.model.ScriptedModelClient;
import dev.cohort.host.client.LeadInternalClient;
import dev.cohort.lead.events.EventRepository;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A team's permission rules end to end, on real parts (the lead, the tool runner, PostgreSQL, the scripted model):
 * {@code GET/PUT …/permissions}, the rules reaching teammates through the internal API, the scenario (deny
 * {@code Bash(curl:*)}, allow {@code Bash(npm test)}, ask {@code Edit(src/**)}) observed through the model's tool
 * results, the events and the approvals API, and the rules of the workspace's {@code .cohort/settings.json}; and the
 * team's MCP servers the same way ({@code GET/PUT …/mcp}: validated, secrets redacted, handed whole to teammates, with
 * those of the settings file).
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
    ScriptedLeadTurns turns;

    @BeforeEach
    void setUp() {
        model = new ScriptedModelClient(modelAdmin);
        model.load("{\"rules\":[" + ModelRules.MEMORY_RULE + "]}");
        turns = new ScriptedLeadTurns(model, eventStore);
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

    // --- MCP servers (GET/PUT …/mcp)

    /** Two servers as Claude Code's .mcp.json has them, each with a secret written out and one named by a variable. */
    static final String MCP_SERVERS = """
            {"mcpServers": {
              "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
                     "env": {"API_KEY": "s3cret-literal", "ROOT": "${HOME}"}},
              "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "agents": ["lead"],
                         "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}", "X-Api-Key": "literal-key"}}}}""";

    @Test
    void theTeamsMcpServersAreStoredShownWithoutTheirSecretsAndHandedWholeToTeammates() throws Exception {
        String team = newTeam("mcp-api");
        assertThat(mcpView(given().get(mcpPath(team)).then().statusCode(200))).isEqualTo(json("""
                {"team": "%s", "mcpServers": {}, "settingsFile": {"path": ".cohort/settings.json", "mcpServers": {}},
                 "inForce": []}""".formatted(team)));

        // a secret written out is shown as <stored>; one named by a variable as written
        String put = given().contentType("application/json").body(MCP_SERVERS).put(mcpPath(team)).then()
                .statusCode(200).extract().asString();
        assertThat(put).doesNotContain("s3cret-literal").doesNotContain("literal-key");
        JsonNode redacted = json("""
                {"fs": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
                        "env": {"API_KEY": "<stored>", "ROOT": "${HOME}"}},
                 "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "agents": ["lead"],
                            "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}", "X-Api-Key": "<stored>"}}}""");
        JsonNode view = json(put);
        assertThat(view.path("mcpServers")).isEqualTo(redacted);
        assertThat(view.path("inForce")).isEqualTo(json("""
                [{"name": "fs", "type": "stdio", "command": "npx",
                  "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
                  "env": {"API_KEY": "<stored>", "ROOT": "${HOME}"}, "source": "api"},
                 {"name": "github", "type": "http", "url": "https://api.githubcopilot.com/mcp/", "agents": ["lead"],
                  "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}", "X-Api-Key": "<stored>"}, "source": "api"}]"""));
        assertThat(mcpView(given().get(mcpPath(team)).then().statusCode(200))).isEqualTo(view);

        // what a teammate host reads of its team (GET /internal/v1/teams/{team}): the servers whole
        McpServerConfig fs = new McpServerConfig("fs", "stdio", "npx", List.of("-y",
                "@modelcontextprotocol/server-filesystem", "."), Map.of("API_KEY", "s3cret-literal", "ROOT", "${HOME}"),
                null, null, null, "api");
        McpServerConfig github = new McpServerConfig("github", "http", null, null, null,
                "https://api.githubcopilot.com/mcp/", Map.of("Authorization", "Bearer ${GITHUB_TOKEN}", "X-Api-Key",
                        "literal-key"), List.of("lead"), "api");
        assertThat(internal.team(team).mcpServers()).isEqualTo(Map.of("fs", fs, "github", github));

        // <stored> sent back keeps the stored value: the GET's servers PUT back change nothing, and a change beside a
        // <stored> keeps the secret
        given().contentType("application/json").body("{\"mcpServers\": " + redacted + "}").put(mcpPath(team)).then()
                .statusCode(200);
        assertThat(internal.team(team).mcpServers()).isEqualTo(Map.of("fs", fs, "github", github));
        given().contentType("application/json").body("""
                {"mcpServers": {"fs": {"command": "uvx", "args": ["mcp-server-fs"],
                                       "env": {"API_KEY": "<stored>", "ROOT": "${HOME}"}}}}""")
                .put(mcpPath(team)).then().statusCode(200).body("mcpServers.fs.env.API_KEY", equalTo("<stored>"));
        assertThat(internal.team(team).mcpServers()).isEqualTo(Map.of("fs", new McpServerConfig("fs", "stdio", "uvx",
                List.of("mcp-server-fs"), Map.of("API_KEY", "s3cret-literal", "ROOT", "${HOME}"), null, null, null,
                "api")));

        // {"mcpServers": {}} removes them all
        given().contentType("application/json").body("{\"mcpServers\": {}}").put(mcpPath(team)).then()
                .statusCode(200).body("inForce", empty());
        assertThat(internal.team(team).mcpServers()).isEmpty();
    }

    @Test
    void anInvalidMcpConfigurationIsA400NamingTheFieldNeverAValueAndTheStoredServersStay() {
        String team = newTeam("mcp-bad");
        given().contentType("application/json").body(MCP_SERVERS).put(mcpPath(team)).then().statusCode(200);

        Map<String, String> refused = new LinkedHashMap<>();
        refused.put("{\"mcpServers\": {\"bad name\": {\"command\": \"npx\"}}}",
                "invalid MCP servers: mcpServers.bad name: a server's name is 1 to 40 letters, digits, '-' or single '_'"
                        + " (its tools are named mcp__<server>__<tool>)");
        refused.put("{\"mcpServers\": {\"fs\": {\"args\": [\"-y\"]}}}",
                "invalid MCP servers: mcpServers.fs.command: required: the program that starts the server, e.g. \"npx\"");
        refused.put("{\"mcpServers\": {\"gh\": {\"type\": \"http\", \"url\": \"ftp://example.com/mcp\"}}}",
                "invalid MCP servers: mcpServers.gh.url: must be an http:// or https:// URL with a host");
        refused.put("{\"mcpServers\": {\"fs\": {\"command\": \"npx\", \"cwd\": \"/\"}}}",
                "invalid MCP servers: mcpServers.fs.cwd: unknown field for a stdio server; accepted: [agents, args,"
                        + " command, env, type]");
        refused.put("{\"mcpServers\": {\"fs\": {\"command\": \"npx\", \"env\": \"TOKEN=s3cret\"}}}",
                "invalid MCP servers: mcpServers.fs.env: must be an object of strings");
        refused.put("{\"mcpServers\": {\"fs\": {\"command\": \"npx\", \"env\": {\"bad key\": \"s3cret\"}}}}",
                "invalid MCP servers: mcpServers.fs.env.bad key: is not an environment variable's name");
        refused.put("{\"mcpServers\": {\"new\": {\"command\": \"npx\", \"env\": {\"TOKEN\": \"<stored>\"}}}}",
                "invalid MCP servers: mcpServers.new.env.TOKEN: '<stored>' keeps a stored value, and none is stored for"
                        + " it; give the value or ${VARIABLE}");
        refused.put("{\"mcpServers\": {}, \"servers\": {}}",
                "invalid MCP servers: servers: unknown field; the body is {\"mcpServers\": {\"<name>\": {\"command\":"
                        + " \"npx\", \"args\": [...]}, \"<name>\": {\"type\": \"http\", \"url\": \"https://…\","
                        + " \"headers\": {...}}}}");
        refused.put("{\"mcpServers\": [\"fs\"]}", "invalid MCP servers: mcpServers: must be an object from server name"
                + " to server, e.g. {\"github\": {\"type\": \"http\", \"url\": \"https://api.githubcopilot.com/mcp/\"}}");
        refused.forEach((body, detail) -> given().contentType("application/json").body(body).put(mcpPath(team)).then()
                .statusCode(400).contentType("application/problem+json").body("detail", equalTo(detail)));
        given().contentType("application/json").body("{}").put(mcpPath(team)).then().statusCode(400)
                .body("detail", containsString("mcpServers: required"));
        given().contentType("application/json").body("[]").put(mcpPath(team)).then().statusCode(400);

        // nothing refused was stored
        assertThat(internal.team(team).mcpServers().keySet()).containsExactlyInAnyOrder("fs", "github");
        assertThat(internal.team(team).mcpServers().get("fs").env()).containsEntry("API_KEY", "s3cret-literal");

        given().get(mcpPath("no-such-team")).then().statusCode(404);
        given().contentType("application/json").body(MCP_SERVERS).put(mcpPath("no-such-team")).then().statusCode(404);
    }

    @Test
    void theSettingsFilesMcpServersAreShownAndTheTeamsReplaceThoseOfTheSameName() throws Exception {
        String team = newTeam("mcp-file");
        Path settings = Files.createDirectories(Path.of(workspace, "teams", team, ".cohort")).resolve("settings.json");
        Files.writeString(settings, """
                {"mcpServers": {"docs": {"type": "http", "url": "https://docs.example.com/mcp"},
                                "fs": {"command": "cat", "env": {"TOKEN": "file-secret"}},
                                "review": {"command": "review-mcp", "agents": ["alice"]}}}""");
        JsonNode fileServers = json("""
                {"docs": {"type": "http", "url": "https://docs.example.com/mcp"},
                 "fs": {"type": "stdio", "command": "cat", "env": {"TOKEN": "<stored>"}},
                 "review": {"type": "stdio", "command": "review-mcp", "agents": ["alice"]}}""");
        JsonNode view = mcpView(given().get(mcpPath(team)).then().statusCode(200));
        assertThat(view.path("settingsFile")).isEqualTo(json("{\"path\": \".cohort/settings.json\", \"mcpServers\": "
                + fileServers + "}"));
        // the lead gets the file's servers that serve it (review is alice's only)
        assertThat(view.path("inForce")).isEqualTo(json("""
                [{"name": "docs", "type": "http", "url": "https://docs.example.com/mcp", "source": "settings"},
                 {"name": "fs", "type": "stdio", "command": "cat", "env": {"TOKEN": "<stored>"}, "source": "settings"}]"""));

        // the team's server of the same name replaces the file's
        view = json(given().contentType("application/json").body("{\"mcpServers\": {\"fs\": {\"command\": \"npx\"}}}")
                .put(mcpPath(team)).then().statusCode(200).extract().asString());
        assertThat(view.path("inForce")).isEqualTo(json("""
                [{"name": "docs", "type": "http", "url": "https://docs.example.com/mcp", "source": "settings"},
                 {"name": "fs", "type": "stdio", "command": "npx", "source": "api"}]"""));

        // broken by a person: the file's last good servers stay in force, and the view says why
        Files.writeString(settings, "{\"mcpServers\": {\"docs\": {\"type\": \"http\", \"url\": \"docs\"}}}");
        view = mcpView(given().get(mcpPath(team)).then().statusCode(200));
        assertThat(view.path("settingsFile").path("mcpServers")).isEqualTo(fileServers);
        assertThat(view.path("settingsFile").path("error").asText()).isEqualTo("invalid .cohort/settings.json:"
                + " mcpServers.docs.url: must be an http:// or https:// URL with a host; the last valid MCP servers of"
                + " it stay in force (3)");
    }

    // --- helpers

    private static String path(String team) {
        return "/api/v1/teams/" + team + "/permissions";
    }

    private static String mcpPath(String team) {
        return "/api/v1/teams/" + team + "/mcp";
    }

    private static JsonNode json(String text) throws Exception {
        return Json.MAPPER.readTree(text);
    }

    private static JsonNode mcpView(ValidatableResponse r) throws Exception {
        return json(r.extract().asString());
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

    private List<String> toolResults(String team) {
        return turns.toolResults(team);
    }
}
