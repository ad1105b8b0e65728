package dev.cohort.teammate.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;

/** The claim scenarios' helpers over a {@link TeamStack}: the lead's internal board API, the board, the roster, the task ids. */
final class ClaimRig {
    private final TeamStack stack;

    ClaimRig(TeamStack stack) {
        this.stack = stack;
    }

    /** A call to the lead's internal API (with the internal token). */
    HttpResponse<String> internal(String team, String path, Object body) {
        return stack.send(HttpRequest.newBuilder(URI.create(stack.leadUrl() + "/internal/v1/teams/" + team + "/tasks" + path))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + TeamStack.INTERNAL_TOKEN)
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(body))).build());
    }

    /** Creates a task as the lead; returns its id. */
    String create(String team, String subject, String description, List<String> blockedBy) {
        Map<String, Object> b = new HashMap<>();
        b.put("agent", "lead");
        b.put("subject", subject);
        b.put("description", description);
        b.put("blockedBy", blockedBy);
        HttpResponse<String> r = internal(team, "", b);
        if (r.statusCode() != 201) {
            throw new IllegalStateException("create " + subject + ": " + r.statusCode() + " " + r.body());
        }
        return TeamStack.json(r.body()).path("id").asText();
    }

    /** The board through the public API (expired leases read as pending, as everyone sees them). */
    List<JsonNode> board(String team) {
        JsonNode a = TeamStack.json(stack.get("/api/v1/teams/" + team + "/tasks").body());
        return StreamSupport.stream(a.spliterator(), false).toList();
    }

    JsonNode task(String team, String id) {
        return TeamStack.json(stack.get("/api/v1/teams/" + team + "/tasks/" + id).body());
    }

    /** teammate name → its row (the lead left out), through the public agents API. */
    Map<String, JsonNode> roster(String team) {
        Map<String, JsonNode> m = new HashMap<>();
        TeamStack.json(stack.get("/api/v1/teams/" + team + "/agents").body()).forEach(a -> {
            if (!"lead".equals(a.path("name").asText())) {
                m.put(a.path("name").asText(), a);
            }
        });
        return m;
    }

    /** name → current_task from {@code lead.roster}. */
    Map<String, String> currentTasks(String team) throws Exception {
        Map<String, String> m = new HashMap<>();
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                "SELECT name, current_task FROM lead.roster WHERE team = ?")) {
            ps.setString(1, team);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    m.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        return m;
    }

    /** The id the board gives its next task ({@code task_<n>}): the lead's tasks sequence, read (not advanced). */
    String nextTaskId(int ahead) throws Exception {
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                "SELECT last_value, is_called FROM lead.tasks_id_seq"); ResultSet rs = ps.executeQuery()) {
            rs.next();
            long next = rs.getBoolean(2) ? rs.getLong(1) + 1 : rs.getLong(1);
            return "task_" + (next + ahead);
        }
    }

    /** The team's events of these types, in seq order. */
    List<JsonNode> events(String team, String... types) {
        List<String> t = List.of(types);
        return new ArrayList<>(stack.events(team).stream().filter(e -> t.contains(e.path("type").asText())).toList());
    }

    /** The tool runner's worktree directory of {@code team}. */
    Path worktree(String team, String name) {
        return stack.workspace().getParent().resolve("runner-state").resolve("worktrees").resolve(team).resolve(name);
    }
}
