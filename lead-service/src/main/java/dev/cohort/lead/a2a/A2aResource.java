package dev.cohort.lead.a2a;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.lead.a2a.A2aTaskRepository.A2aTaskRow;
import dev.cohort.lead.a2a.A2aTasks.Status;
import io.quarkus.logging.Log;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Every team is an A2A 1.0 agent ({@link A2aCardResource} serves its card). Its JSON-RPC binding is
 * {@code POST /a2a/<team>}, behind the API's bearer token, with {@code SendMessage}, {@code SendStreamingMessage} (SSE), {@code GetTask}, {@code ListTasks},
 * {@code CancelTask} and {@code SubscribeToTask} (SSE). A request may name the version it speaks in
 * {@code A2A-Version}: 1.0 (any 1.x) is served, another is refused with {@code -32009}. What a task is, and how its state
 * is read, is {@link A2aTasks}'s.
 */
@Path("/a2a/{team}")
public class A2aResource {

    static final String VERSION = "1.0";
    private static final Set<String> STREAMING = Set.of("SendStreamingMessage", "SubscribeToTask");
    private static final Set<String> PUSH = Set.of("CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig",
            "ListTaskPushNotificationConfig", "ListTaskPushNotificationConfigs", "DeleteTaskPushNotificationConfig");
    static final int DEFAULT_PAGE = 50;
    static final int MAX_PAGE = 100;
    /** The most tasks a ListTasks with a state filter reads to find its page. */
    static final int SCAN_LIMIT = 10_000;

    @Inject
    A2aTasks tasks;

    // ---- the JSON-RPC binding

    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces({MediaType.APPLICATION_JSON, MediaType.SERVER_SENT_EVENTS})
    @RunOnVirtualThread
    public Response rpc(@PathParam("team") String team, String body, @HeaderParam("A2A-Version") String a2aVersion) {
        JsonNode req;
        try {
            req = body == null || body.isBlank() ? null : Json.MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            return json(error(null, new A2aError(A2aError.PARSE_ERROR, "the body is not JSON: "
                    + e.getOriginalMessage())));
        }
        if (req == null || !req.isObject() || !"2.0".equals(req.path("jsonrpc").asText())
                || !req.path("method").isTextual()) {
            return json(error(req != null && req.isObject() ? req.get("id") : null, new A2aError(
                    A2aError.INVALID_REQUEST, "a JSON-RPC 2.0 request object is required: {\"jsonrpc\": \"2.0\", \"id\","
                    + " \"method\", \"params\"}")));
        }
        JsonNode id = req.get("id");
        String method = req.get("method").asText();
        boolean streaming = STREAMING.contains(method);
        try {
            checkVersion(a2aVersion);
            JsonNode params = req.get("params");
            if (params != null && !params.isNull() && !params.isObject()) {
                throw A2aError.invalidParams("params must be an object");
            }
            ObjectNode p = params == null || params.isNull() ? Json.MAPPER.createObjectNode() : (ObjectNode) params;
            String tenant = p.path("tenant").asText("");
            if (!tenant.isBlank() && !tenant.equals(team)) {
                throw A2aError.invalidParams("params.tenant \"" + tenant + "\" is not this endpoint's team \"" + team
                        + "\"");
            }
            tasks.requireTeam(team);
            if (streaming) {
                return stream(team, id, method, p);
            }
            return json(result(id, call(team, method, p)));
        } catch (A2aError e) {
            return streaming ? sse(out -> frame(out, error(id, e))) : json(error(id, e));
        } catch (RuntimeException e) {
            Log.warnf(e, "team=%s A2A %s failed", team, method);
            A2aError internal = new A2aError(A2aError.INTERNAL_ERROR, "internal error: " + e.getClass().getSimpleName());
            return streaming ? sse(out -> frame(out, error(id, internal))) : json(error(id, internal));
        }
    }

    private static void checkVersion(String v) {
        if (v == null || v.isBlank()) {
            return;
        }
        String major = v.strip().split("\\.")[0];
        if (!major.equals("1")) {
            throw new A2aError(A2aError.VERSION_NOT_SUPPORTED, "A2A-Version " + v.strip() + " is not supported; this"
                    + " agent speaks " + VERSION);
        }
    }

    private JsonNode call(String team, String method, ObjectNode p) {
        return switch (method) {
            case "SendMessage" -> sendMessage(team, p);
            case "GetTask" -> tasks.task(team, requiredId(p), historyLength(p), true);
            case "ListTasks" -> listTasks(team, p);
            case "CancelTask" -> {
                String taskId = requiredId(p);
                Status s = tasks.cancel(team, taskId);
                yield tasks.task(tasks.row(team, taskId), s, null, true);
            }
            case "GetExtendedAgentCard" -> throw new A2aError(A2aError.EXTENDED_AGENT_CARD_NOT_CONFIGURED,
                    "this agent has no extended card; its card is GET /.well-known/agent-card.json?team=" + team);
            default -> {
                if (PUSH.contains(method)) {
                    throw new A2aError(A2aError.PUSH_NOTIFICATION_NOT_SUPPORTED, "push notifications are not supported:"
                            + " follow a task with SendStreamingMessage or SubscribeToTask, or poll it with GetTask");
                }
                throw new A2aError(A2aError.METHOD_NOT_FOUND, "unknown method \"" + method + "\"; this agent serves"
                        + " SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask and SubscribeToTask");
            }
        };
    }

    private JsonNode sendMessage(String team, ObjectNode p) {
        String taskId = tasks.send(team, p.get("message"));
        JsonNode conf = p.path("configuration");
        // 1.0's returnImmediately; earlier 1.0 drafts said blocking (false: return at once)
        boolean immediately = conf.path("returnImmediately").asBoolean(false)
                || (conf.has("blocking") && !conf.get("blocking").asBoolean(true));
        Integer history = conf.hasNonNull("historyLength") ? conf.get("historyLength").asInt() : null;
        Status s = immediately ? tasks.status(tasks.row(team, taskId)) : tasks.await(team, taskId, tasks.maxWait(), x -> { });
        ObjectNode out = Json.MAPPER.createObjectNode();
        out.set("task", tasks.task(tasks.row(team, taskId), s, history, true));
        return out;
    }

    private JsonNode listTasks(String team, ObjectNode p) {
        String contextId = p.path("contextId").asText("");
        String state = p.path("status").asText("");
        if (!state.isBlank() && !state.equals("TASK_STATE_UNSPECIFIED") && !A2aTasks.STATES.contains(state)) {
            throw A2aError.invalidParams("status must be a TaskState (TASK_STATE_WORKING …), got \"" + state + "\"");
        }
        boolean byState = !state.isBlank() && !state.equals("TASK_STATE_UNSPECIFIED");
        int pageSize = p.hasNonNull("pageSize") && p.get("pageSize").asInt() != 0 ? p.get("pageSize").asInt() : DEFAULT_PAGE;
        if (pageSize < 1 || pageSize > MAX_PAGE) {
            throw A2aError.invalidParams("pageSize must be from 1 to " + MAX_PAGE + ", got " + pageSize);
        }
        int offset = 0;
        String token = p.path("pageToken").asText("");
        if (!token.isBlank()) {
            try {
                offset = Integer.parseInt(token);
            } catch (NumberFormatException e) {
                offset = -1;
            }
            if (offset < 0) {
                throw A2aError.invalidParams("pageToken \"" + token + "\" is not one ListTasks returned");
            }
        }
        Instant after = null;
        if (p.hasNonNull("statusTimestampAfter") && !p.get("statusTimestampAfter").asText().isBlank()) {
            try {
                after = Instant.parse(p.get("statusTimestampAfter").asText());
            } catch (RuntimeException e) {
                throw A2aError.invalidParams("statusTimestampAfter must be an RFC 3339 time");
            }
        }
        Integer history = p.hasNonNull("historyLength") ? p.get("historyLength").asInt() : null;
        boolean artifacts = p.path("includeArtifacts").asBoolean(false);
        List<A2aTaskRow> rows = tasks.list(team, contextId.isBlank() ? null : contextId, SCAN_LIMIT, 0);
        List<ObjectNode> matching = new ArrayList<>();
        int total = 0;
        for (A2aTaskRow r : rows) {
            boolean filtered = byState || after != null;
            if (!filtered) {
                total++;
                if (total > offset && matching.size() < pageSize) {
                    matching.add(tasks.task(r, tasks.status(r), history, artifacts));
                }
                continue;
            }
            Status s = tasks.status(r);
            if ((byState && !s.state().equals(state)) || (after != null && s.at().isBefore(after))) {
                continue;
            }
            total++;
            if (total > offset && matching.size() < pageSize) {
                matching.add(tasks.task(r, s, history, artifacts));
            }
        }
        ObjectNode out = Json.MAPPER.createObjectNode();
        ArrayNode list = out.putArray("tasks");
        matching.forEach(list::add);
        int next = offset + matching.size();
        out.put("nextPageToken", next < total ? Integer.toString(next) : "");
        // the tasks this page holds (as the A2A SDK reads the field), at most the pageSize asked for
        out.put("pageSize", matching.size());
        out.put("totalSize", total);
        return out;
    }

    private static String requiredId(ObjectNode p) {
        String id = p.path("id").asText("");
        if (id.isBlank()) {
            throw A2aError.invalidParams("\"id\" (the task's) is required");
        }
        return id;
    }

    private static Integer historyLength(ObjectNode p) {
        return p.hasNonNull("historyLength") ? p.get("historyLength").asInt() : null;
    }

    // ---- streams

    /**
     * An SSE stream of the task's {@code StreamResponse}s: the task first, then a status update at each change of its
     * state (and the answer artifact before the completed status), until the task ends or waits for input.
     */
    private Response stream(String team, JsonNode id, String method, ObjectNode p) {
        String taskId;
        Integer history;
        if (method.equals("SendStreamingMessage")) {
            taskId = tasks.send(team, p.get("message"));
            history = p.path("configuration").hasNonNull("historyLength")
                    ? p.path("configuration").get("historyLength").asInt() : null;
        } else {
            taskId = requiredId(p);
            history = historyLength(p);
            Status now = tasks.status(tasks.row(team, taskId));
            if (now.terminal()) {
                throw new A2aError(A2aError.UNSUPPORTED_OPERATION, "task \"" + taskId + "\" has ended (" + now.state()
                        + "): there is nothing to subscribe to; GetTask reads it");
            }
        }
        A2aTaskRow row = tasks.row(team, taskId);
        return sse(out -> {
            boolean[] first = {true};
            tasks.await(team, taskId, tasks.maxWait(), s -> {
                if (first[0]) {
                    first[0] = false;
                    ObjectNode r = Json.MAPPER.createObjectNode();
                    r.set("task", tasks.task(row, s, history, true));
                    frame(out, result(id, r));
                    return;
                }
                if (s.answer() != null) {
                    ObjectNode art = Json.MAPPER.createObjectNode();
                    ObjectNode a = art.putObject("artifactUpdate");
                    a.put("taskId", taskId);
                    a.put("contextId", row.contextId());
                    a.set("artifact", A2aTasks.answerArtifact(s.answer()));
                    a.put("append", false);
                    a.put("lastChunk", true);
                    frame(out, result(id, art));
                }
                ObjectNode upd = Json.MAPPER.createObjectNode();
                ObjectNode u = upd.putObject("statusUpdate");
                u.put("taskId", taskId);
                u.put("contextId", row.contextId());
                u.set("status", A2aTasks.statusNode(s));
                frame(out, result(id, upd));
            });
        });
    }

    private interface Frames {
        void write(OutputStream out) throws IOException;
    }

    private static Response sse(Frames frames) {
        StreamingOutput body = out -> {
            try {
                frames.write(out);
            } catch (UncheckedIOException e) {
                // the client went away: nothing to tell it
            }
        };
        return Response.ok(body, MediaType.SERVER_SENT_EVENTS).header("A2A-Version", VERSION)
                .header("Cache-Control", "no-cache").build();
    }

    private static void frame(OutputStream out, JsonNode message) {
        try {
            out.write(("data: " + Json.write(message) + "\n\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Response json(JsonNode body) {
        return Response.ok(Json.write(body), MediaType.APPLICATION_JSON).header("A2A-Version", VERSION).build();
    }

    static ObjectNode result(JsonNode id, JsonNode result) {
        ObjectNode r = Json.MAPPER.createObjectNode();
        r.put("jsonrpc", "2.0");
        r.set("id", id == null ? Json.MAPPER.nullNode() : id);
        r.set("result", result);
        return r;
    }

    static ObjectNode error(JsonNode id, A2aError e) {
        ObjectNode r = Json.MAPPER.createObjectNode();
        r.put("jsonrpc", "2.0");
        r.set("id", id == null ? Json.MAPPER.nullNode() : id);
        ObjectNode err = r.putObject("error");
        err.put("code", e.code());
        err.put("message", e.getMessage());
        return r;
    }
}
