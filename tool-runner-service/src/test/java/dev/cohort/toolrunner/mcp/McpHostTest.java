package dev.cohort.toolrunner.mcp;

import static dev.cohort.toolrunner.Calls.newTeam;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.mcp.McpListRequest;
import dev.cohort.core.mcp.McpServerConfig;
import dev.cohort.core.mcp.McpServerTools;
import dev.cohort.core.mcp.McpToolInfo;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.toolrunner.ToolCallRequest;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.Calls;
import dev.cohort.toolrunner.McpPeers;
import dev.cohort.toolrunner.TempWorkspaceResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A team's MCP servers on the tool runner, with the reference servers from npm ({@code server-everything},
 * {@code server-filesystem}): a local server runs in the team's sandbox (it sees the team's workspace only), starts on
 * first use, is started again after it died, and every failure (a crash mid-call, no answer in time, a protocol
 * error, a missing variable, a bad command) is a tool error naming the server. Secrets the server is given never come
 * back to the model. A remote server is reached over streamable HTTP, only by a team whose sandbox has the network.
 */
@QuarkusTest
class McpHostTest {

    @Inject
    McpHost host;

    private static McpServerConfig everything(McpPeers p, Map<String, String> env) {
        return new McpServerConfig("everything", "stdio", p.node().toString(),
                List.of(p.everything().toString(), "stdio"), env, null, null, null, "api");
    }

    static List<McpServerTools> list(String team, boolean readOnly, McpServerConfig... servers) {
        String body = given().header("Authorization", "Bearer " + TempWorkspaceResource.TOKEN)
                .contentType(ContentType.JSON).body(Json.write(new McpListRequest(team, "lead", readOnly,
                        List.of(servers)))).post("/internal/v1/mcp/tools").then().statusCode(200).extract().asString();
        return List.of(Json.read(body, McpServerTools[].class));
    }

    static ToolCallResult call(String team, String callId, McpServerConfig server, String tool,
            Map<String, Object> args) {
        ToolCallRequest req = new ToolCallRequest(team, "lead", callId, null, args, null, server);
        String body = given().header("Authorization", "Bearer " + TempWorkspaceResource.TOKEN)
                .contentType(ContentType.JSON).body(Json.write(req))
                .post("/internal/v1/tools/mcp__" + server.name() + "__" + tool).then().statusCode(200).extract()
                .asString();
        return Json.read(body, ToolCallResult.class);
    }

    private static String id() {
        return "call_" + UUID.randomUUID();
    }

    @Test
    void aLocalServerStartsOnFirstUseInTheTeamsSandboxAndItsToolsAreCalled() throws Exception {
        McpPeers p = McpPeers.required();
        String team = newTeam();
        McpServerConfig s = everything(p, null);
        assertThat(host.running(team)).isZero();

        List<McpServerTools> listed = list(team, false, s);
        assertThat(listed).hasSize(1);
        assertThat(listed.get(0).error()).isNull();
        assertThat(listed.get(0).tools()).extracting(McpToolInfo::name).contains("echo", "get-sum", "get-env");
        McpToolInfo echo = listed.get(0).tools().stream().filter(t -> t.name().equals("echo")).findFirst().orElseThrow();
        assertThat(echo.readOnly()).isTrue();
        assertThat(echo.inputSchema().path("properties").has("message")).isTrue();
        assertThat(host.running(team)).isEqualTo(1);

        ToolCallResult r = call(team, id(), s, "echo", Map.of("message", "hello from cohort"));
        assertThat(r.error()).isNull();
        assertThat(r.output()).contains("Echo: hello from cohort");
        ToolCallResult sum = call(team, id(), s, "get-structured-content", Map.of("location", "Chicago"));
        assertThat(sum.error()).isNull();
        assertThat(sum.output()).contains("structuredContent: {");
        // content the model cannot read as text is named with its type and size
        ToolCallResult image = call(team, id(), s, "get-tiny-image", Map.of());
        assertThat(image.error()).isNull();
        assertThat(image.output()).containsPattern("\\[image content, image/png, [0-9]+ bytes]");
        assertThat(call(team, id(), s, "get-resource-links", Map.of("count", 2)).output())
                .contains("[resource link: ");

        // the server announces a changed list after it started (notifications/tools/list_changed): the next list
        // reads it again under a new version; then the version stays while nothing changes
        long settled = list(team, false, s).get(0).version();
        assertThat(settled).isGreaterThanOrEqualTo(listed.get(0).version());
        assertThat(list(team, false, s).get(0).version()).isEqualTo(settled);
    }

    @Test
    void anIdleServerIsStoppedItsToolsStayKnownAndItsNextCallStartsItAgain() throws Exception {
        McpPeers p = McpPeers.required();
        String team = newTeam();
        McpServerConfig s = everything(p, null);
        assertThat(list(team, false, s).get(0).error()).isNull(); // an agent lists the tools before it calls one
        assertThat(call(team, id(), s, "echo", Map.of("message", "one")).error()).isNull();
        assertThat(host.running(team)).isEqualTo(1);

        assertThat(host.stopIdle(java.time.Duration.ZERO)).isGreaterThanOrEqualTo(1);
        assertThat(host.running(team)).isZero();
        // listing an idle server's tools answers what it listed last, without starting it
        assertThat(list(team, false, s).get(0).tools()).extracting(McpToolInfo::name).contains("echo");
        assertThat(host.running(team)).isZero();
        assertThat(call(team, id(), s, "echo", Map.of("message", "two")).output()).contains("Echo: two");
        assertThat(host.running(team)).isEqualTo(1);
    }

    @Test
    void secretsGivenToTheServerNeverComeBackToTheModel() throws Exception {
        McpPeers p = McpPeers.required();
        String team = newTeam();
        McpServerConfig s = everything(p, Map.of("COHORT_LITERAL_TOKEN", "literal-secret-7421",
                "COHORT_FROM_VARIABLE", "${COHORT_TEST_UNSET_VARIABLE:-defaulted-secret-9931}"));
        ToolCallResult env = call(team, id(), s, "get-env", Map.of());
        assertThat(env.error()).isNull();
        assertThat(env.output()).contains("COHORT_LITERAL_TOKEN").contains("COHORT_FROM_VARIABLE").contains("***")
                .doesNotContain("literal-secret-7421").doesNotContain("defaulted-secret-9931");
        // the runner's own environment is not the server's: only the sandbox's allowlist and the server's env
        assertThat(env.output()).doesNotContain("COHORT_TOOL_RUNNER_TOKEN").doesNotContain(TempWorkspaceResource.TOKEN);

        McpServerConfig unset = everything(p, Map.of("GITHUB_TOKEN", "${COHORT_TEST_SURELY_UNSET_VARIABLE}"));
        McpServerTools t = list(team, false, unset).get(0);
        assertThat(t.error()).contains("'everything'").contains("COHORT_TEST_SURELY_UNSET_VARIABLE")
                .contains("is not set");

        // only the variables cohort.mcp.variables lends (here PATH) are read from the runner's environment
        McpServerConfig lent = everything(p, Map.of("FROM_RUNNER", "${PATH}"));
        ToolCallResult lentEnv = call(newTeam(), id(), lent, "get-env", Map.of());
        assertThat(lentEnv.error()).isNull();
        assertThat(lentEnv.output()).contains("FROM_RUNNER").doesNotContain(System.getenv("PATH"));
        McpServerConfig notLent = everything(p, Map.of("RUNNER_HOME", "${HOME}"));
        assertThat(list(newTeam(), false, notLent).get(0).error()).contains("HOME")
                .contains("not lent to MCP servers (cohort.mcp.variables)");
    }

    @Test
    void aLocalServerSeesTheTeamsWorkspaceOnly() throws Exception {
        McpPeers p = McpPeers.required();
        String mine = newTeam();
        String other = newTeam();
        Calls.bash(mine, "true");
        Calls.bash(other, "true");
        Files.writeString(Calls.workspace(mine).resolve("notes.txt"), "mine\n");
        Files.writeString(Calls.workspace(other).resolve("secret.txt"), "the other team's\n");
        McpServerConfig fs = new McpServerConfig("fs", "stdio", p.node().toString(),
                List.of(p.filesystem().toString(), "/"), null, null, null, null, "settings");

        ToolCallResult read = call(mine, id(), fs, "read_text_file",
                Map.of("path", Calls.workspace(mine).resolve("notes.txt").toString()));
        assertThat(read.error()).isNull();
        assertThat(read.output()).contains("mine");

        ToolCallResult theirs = call(mine, id(), fs, "read_text_file",
                Map.of("path", Calls.workspace(other).resolve("secret.txt").toString()));
        assertThat(theirs.error()).contains("MCP server 'fs'");
        assertThat(String.valueOf(theirs.output()) + theirs.error()).doesNotContain("the other team's");
        ToolCallResult state = call(mine, id(), fs, "list_directory", Map.of("path", Calls.stateDir().toString()));
        assertThat(state.error()).as("the runner's state is hidden").isNotNull();

        ToolCallResult wrote = call(mine, id(), fs, "write_file",
                Map.of("path", Calls.workspace(mine).resolve("from-mcp.txt").toString(), "content", "written\n"));
        assertThat(wrote.error()).isNull();
        assertThat(Files.readString(Calls.workspace(mine).resolve("from-mcp.txt"))).isEqualTo("written\n");
    }

    @Test
    void inPlanModeALocalServerRunsWithTheWorkspaceReadOnly() throws Exception {
        Assumptions.assumeFalse("none".equals(System.getenv("COHORT_SANDBOX")), "COHORT_SANDBOX=none: nothing is confined");
        McpPeers p = McpPeers.required();
        String team = newTeam();
        McpServerConfig fs = new McpServerConfig("fs", "stdio", p.node().toString(),
                List.of(p.filesystem().toString(), Calls.workspace(team).toString()), null, null, null, null, "api");
        ToolCallRequest req = new ToolCallRequest(team, "lead", id(), null, Map.of("path",
                Calls.workspace(team).resolve("plan.txt").toString(), "content", "x"), true, fs);
        String body = given().header("Authorization", "Bearer " + TempWorkspaceResource.TOKEN)
                .contentType(ContentType.JSON).body(Json.write(req)).post("/internal/v1/tools/mcp__fs__write_file")
                .then().statusCode(200).extract().asString();
        ToolCallResult r = Json.read(body, ToolCallResult.class);
        assertThat(r.error()).contains("MCP server 'fs'");
        assertThat(Calls.workspace(team).resolve("plan.txt")).doesNotExist();
    }

    @Test
    void aServerKilledMidCallIsAToolErrorAndIsStartedAgainAtItsNextUse() throws Exception {
        McpPeers p = McpPeers.required();
        String team = newTeam();
        McpServerConfig s = everything(p, null);
        assertThat(list(team, false, s).get(0).error()).isNull();
        long firstPid = host.process(team, "everything").orElseThrow().pid();

        String slowId = id();
        CompletableFuture<ToolCallResult> slow = CompletableFuture.supplyAsync(() -> call(team, slowId, s,
                "trigger-long-running-operation", Map.of("duration", 8, "steps", 8)));
        // killed once the call was sent and before it was answered
        while (host.calling(team, "everything") == 0 && !slow.isDone()) {
            Thread.onSpinWait();
        }
        host.process(team, "everything").orElseThrow().destroyForcibly();
        ToolCallResult r = slow.get(60, TimeUnit.SECONDS);
        assertThat(r.error()).contains("MCP server 'everything'").contains("exited")
                .contains("trigger-long-running-operation").contains("started again");

        ToolCallResult again = call(team, id(), s, "echo", Map.of("message", "back"));
        assertThat(again.error()).isNull();
        assertThat(again.output()).contains("Echo: back");
        assertThat(host.process(team, "everything").orElseThrow().pid()).isNotEqualTo(firstPid);

        // the killed call's id is answered from the record, never sent to the new server
        ToolCallResult replay = call(team, slowId, s, "trigger-long-running-operation",
                Map.of("duration", 8, "steps", 8));
        assertThat(replay.error()).isEqualTo(r.error());
    }

    @Test
    void aServerThatDoesNotAnswerInTimeIsAToolErrorNamingTheTimeout() throws Exception {
        McpPeers p = McpPeers.required();
        String team = newTeam();
        McpServerConfig s = everything(p, null);
        ToolCallResult r = call(team, id(), s, "trigger-long-running-operation", Map.of("duration", 120, "steps", 2));
        assertThat(r.error()).contains("MCP server 'everything' did not answer tools/call within 10000 ms")
                .contains("cohort.mcp.call-timeout");
        // the server itself goes on serving
        assertThat(call(team, id(), s, "echo", Map.of("message", "still here")).output()).contains("still here");
    }

    @Test
    void protocolErrorsAndBadServersAreToolErrorsNamingTheServer() throws Exception {
        McpPeers p = McpPeers.required();
        String team = newTeam();
        McpServerConfig s = everything(p, null);
        ToolCallResult unknown = call(team, id(), s, "no-such-tool", Map.of());
        assertThat(unknown.error()).contains("MCP server 'everything'");
        ToolCallResult badArgs = call(team, id(), s, "get-sum", Map.of("a", "not a number"));
        assertThat(badArgs.error()).contains("MCP server 'everything'");

        McpServerConfig missing = new McpServerConfig("broken", "stdio", "/no/such/program", List.of(), null, null,
                null, null, "api");
        McpServerTools t = list(team, false, missing).get(0);
        assertThat(t.error()).contains("MCP server 'broken'");
        ToolCallResult c = call(team, id(), missing, "anything", Map.of());
        assertThat(c.error()).contains("MCP server 'broken'");

        McpServerConfig notMcp = new McpServerConfig("cat", "stdio", "/bin/sh", List.of("-c", "echo not json; sleep 60"),
                null, null, null, null, "api");
        McpServerTools silent = list(team, false, notMcp).get(0);
        assertThat(silent.error()).contains("MCP server 'cat'");
    }

    @Test
    void aRemoteServerIsReachedOverStreamableHttpOnlyWithTheTeamsNetwork() throws Exception {
        McpPeers p = McpPeers.required();
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        ProcessBuilder pb = new ProcessBuilder(p.node().toString(), p.everything().toString(), "streamableHttp")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("PORT", String.valueOf(port));
        Process server = pb.start();
        try {
            McpServerConfig remote = new McpServerConfig("remote", "http", null, null, null,
                    "http://127.0.0.1:" + port + "/mcp", Map.of("Authorization", "Bearer remote-secret-5512"), null,
                    "api");
            McpServerTools refused = list(newTeam(), false, remote).get(0);
            assertThat(refused.error()).contains("MCP server 'remote' is remote").contains("has no network");

            String team = TempWorkspaceResource.NETWORK_TEAM;
            McpServerTools listed = null;
            for (int i = 0; i < 100; i++) { // until the server listens
                listed = list(team, false, remote).get(0);
                if (listed.error() == null) {
                    break;
                }
                Thread.sleep(200);
            }
            assertThat(listed.error()).isNull();
            assertThat(listed.tools()).extracting(McpToolInfo::name).contains("echo");
            ToolCallResult r = call(team, id(), remote, "echo", Map.of("message", "over http"));
            assertThat(r.error()).isNull();
            assertThat(r.output()).contains("Echo: over http");
        } finally {
            server.destroy();
            server.waitFor(10, TimeUnit.SECONDS);
            server.destroyForcibly();
        }
    }

    @Test
    void aMalformedListRequestIsRefused() {
        given().header("Authorization", "Bearer " + TempWorkspaceResource.TOKEN).contentType(ContentType.JSON)
                .body("{\"team\": \"../x\", \"servers\": []}").post("/internal/v1/mcp/tools").then().statusCode(400);
        given().header("Authorization", "Bearer " + TempWorkspaceResource.TOKEN).contentType(ContentType.JSON)
                .body("{not json").post("/internal/v1/mcp/tools").then().statusCode(400);
    }

}
