package dev.cohort.toolrunner;

import static io.restassured.RestAssured.given;

import dev.cohort.core.protocol.Json;
import dev.cohort.core.toolrunner.ToolCallResult;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.config.ConfigProvider;

/** Test helpers: tool calls over HTTP with the token, fresh teams, the configured directories. */
public final class Calls {
    private static final AtomicInteger TEAMS = new AtomicInteger();

    private Calls() {
    }

    /** A team id no other test uses (its workspace is created on first call). */
    public static String newTeam() {
        return "t" + TEAMS.incrementAndGet() + "-" + UUID.randomUUID().toString().substring(0, 6);
    }

    public static Map<String, Object> args(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    public static Response raw(String tool, String team, String agent, String callId, String cwd,
            Map<String, Object> args) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("team", team);
        body.put("agent", agent);
        body.put("callId", callId);
        if (cwd != null) {
            body.put("cwd", cwd);
        }
        body.put("args", args);
        return given().header("Authorization", "Bearer " + TempWorkspaceResource.TOKEN).contentType(ContentType.JSON)
                .body(Json.write(body)).post("/internal/v1/tools/" + tool);
    }

    public static ToolCallResult call(String tool, String team, Map<String, Object> args) {
        return call(tool, team, "lead", null, args);
    }

    public static ToolCallResult call(String tool, String team, String agent, String cwd, Map<String, Object> args) {
        Response r = raw(tool, team, agent, "call_" + UUID.randomUUID(), cwd, args);
        r.then().statusCode(200);
        return Json.read(r.asString(), ToolCallResult.class);
    }

    public static ToolCallResult bash(String team, String command) {
        return call("bash", team, args("command", command));
    }

    public static Path root() {
        return Path.of(ConfigProvider.getConfig().getValue("cohort.tool-runner.workspace-root", String.class));
    }

    public static Path stateDir() {
        return Path.of(ConfigProvider.getConfig().getValue("cohort.tool-runner.state-dir", String.class));
    }

    /** The workspace of a non-default team. */
    public static Path workspace(String team) {
        return root().resolve("teams").resolve(team);
    }
}
