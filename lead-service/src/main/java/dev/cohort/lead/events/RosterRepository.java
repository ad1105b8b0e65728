package dev.cohort.lead.events;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.Usage;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.payload.TeammatePhase;
import dev.cohort.platform.sql.Sql;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code lead.roster}: the team's teammates as the lead knows them (contract §5). Written by the lead's
 * {@code spawn_teammate} ({@link #recordSpawn}, in the transaction that records the call's result) and by every stored
 * {@code teammate_spawned} / {@code teammate_phase} event ({@link #project}, in the transaction that stores the event:
 * an event stored once is projected once, a redelivered one is neither). Also the teammate's turn from its
 * {@code turn_started} / {@code turn_completed}.
 */
@ApplicationScoped
public class RosterRepository {

    /** A teammate's phase when it is not hosted (its inbox is kept until a spawn restarts it). */
    public static final String SHUTDOWN = TeammatePhase.SHUTDOWN;
    /** The phase the lead records at a spawn, until the teammate reports its own. */
    public static final String STARTING = "starting";

    /** One teammate. */
    public record RosterRow(String team, String name, String role, boolean planMode, String phase, String reason,
            String currentTask, String turnId, JsonNode usage, String replica, Instant spawnedAt, Instant updatedAt) {

        /** Not shut down: hosted, or about to be. */
        public boolean live() {
            return !SHUTDOWN.equals(phase);
        }
    }

    /** The counts the spawn limits are checked against. */
    public record Counts(int total, int live) {
    }

    private static final String COLUMNS = "team, name, role, plan_mode, phase, reason, current_task, turn_id, usage::text,"
            + " replica, spawned_at, updated_at";

    @Inject
    AgroalDataSource ds;

    /** The team's teammates by name. */
    public List<RosterRow> list(String team) {
        return Sql.inTransaction(ds, "read the roster of " + team, c -> list(c, team));
    }

    public Optional<RosterRow> find(String team, String name) {
        return Sql.inTransaction(ds, "read teammate " + team + "/" + name, c -> find(c, team, name));
    }

    /** The usage the team's teammates reported, summed (calls are not reported by teammates: 0). */
    public Usage usage(String team) {
        return Sql.inTransaction(ds, "teammates' usage of " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT COALESCE(SUM((usage->>'inputTokens')::bigint), 0), "
                    + "COALESCE(SUM((usage->>'outputTokens')::bigint), 0), COALESCE(SUM((usage->>'calls')::bigint), 0), "
                    + "COALESCE(SUM((usage->>'costUsd')::float8), 0) FROM lead.roster WHERE team = ?")) {
                ps.setString(1, team);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return new Usage(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getDouble(4));
                }
            }
        });
    }

    /**
     * Serialises the spawns of one team until the caller's transaction ends (a transaction-level advisory lock), so
     * the limits are checked against counts no concurrent spawn changes meanwhile.
     */
    public static void lockTeam(Connection c, String team) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtext('lead.roster/' || ?))")) {
            ps.setString(1, team);
            ps.executeQuery().close();
        }
    }

    /** Teammates ever recorded in the team, and those not shut down, read on the caller's connection. */
    public static Counts counts(Connection c, String team) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*), count(*) FILTER (WHERE phase <> ?) FROM lead.roster "
                + "WHERE team = ?")) {
            ps.setString(1, SHUTDOWN);
            ps.setString(2, team);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new Counts(rs.getInt(1), rs.getInt(2));
            }
        }
    }

    /**
     * A spawn the lead made: the row is created, or a shut-down one is back to {@code starting} with the new role and
     * plan mode (its usage is kept: it is the same teammate, its history kept by teammate-service). A live row is left
     * alone (false): the caller refuses such a spawn before it gets here, under {@link #lockTeam}.
     */
    public static boolean recordSpawn(Connection c, String team, String name, String role, boolean planMode)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO lead.roster (team, name, role, plan_mode, phase) "
                + "VALUES (?, ?, ?, ?, ?) ON CONFLICT (team, name) DO UPDATE SET role = EXCLUDED.role, "
                + "plan_mode = EXCLUDED.plan_mode, phase = EXCLUDED.phase, reason = NULL, current_task = NULL, "
                + "turn_id = NULL, spawned_at = now(), updated_at = now() WHERE lead.roster.phase = ?")) {
            Sql.bind(ps, team, name, role, planMode, STARTING, SHUTDOWN);
            return ps.executeUpdate() == 1;
        }
    }

    /**
     * {@code true} when {@link #project} may write for this event: a teammate's spawn, phase, turn start or end, a
     * task claimed by a teammate, a task completed. The lead's own step events ({@code assistant_message},
     * {@code tool_call_*}) are not, so they can be stored by a statement that does not project
     * ({@code EventRepository.clause}).
     */
    public static boolean projects(Event e) {
        if (e.type() == null || e.team() == null) {
            return false;
        }
        return switch (e.type()) {
            case TEAMMATE_SPAWNED, TEAMMATE_PHASE, TASK_CLAIMED, TASK_COMPLETED -> true;
            case TURN_STARTED, TURN_COMPLETED -> e.agent() != null && !Ids.LEAD.equals(e.agent());
            default -> false;
        };
    }

    /**
     * Applies a newly stored event to the roster, on the connection (and in the transaction) that stored it:
     * {@code teammate_spawned} creates the row or updates role, plan mode and replica (a shut-down row is
     * {@code starting} again); {@code teammate_phase} sets phase, reason, current task, usage and replica (creating
     * the row of a teammate the lead never spawned, e.g. one started by an external producer); a teammate's
     * {@code turn_started} / {@code turn_completed} sets / clears its turn. Other events, and the lead's, do nothing.
     */
    public static void project(Connection c, Event e) throws SQLException {
        if (e.type() == null || e.team() == null) {
            return;
        }
        JsonNode d = e.data() == null ? Json.MAPPER.createObjectNode() : e.data();
        switch (e.type()) {
            case TEAMMATE_SPAWNED -> {
                String name = text(d, "name", e.agent());
                if (!Ids.isAgent(name) || Ids.LEAD.equals(name)) {
                    return;
                }
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO lead.roster (team, name, role, plan_mode, phase, "
                        + "replica) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (team, name) DO UPDATE SET "
                        + "role = COALESCE(EXCLUDED.role, lead.roster.role), plan_mode = EXCLUDED.plan_mode, "
                        + "replica = COALESCE(EXCLUDED.replica, lead.roster.replica), "
                        + "phase = CASE WHEN lead.roster.phase = ? THEN ? ELSE lead.roster.phase END, updated_at = now()")) {
                    Sql.bind(ps, e.team(), name, text(d, "role", null), d.path("planMode").asBoolean(false), STARTING,
                            text(d, "replica", null), SHUTDOWN, STARTING);
                    ps.executeUpdate();
                }
            }
            case TEAMMATE_PHASE -> {
                String name = text(d, "name", e.agent());
                String phase = text(d, "phase", null);
                if (!Ids.isAgent(name) || Ids.LEAD.equals(name) || phase == null) {
                    return;
                }
                JsonNode usage = d.get("usage");
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO lead.roster (team, name, phase, reason, "
                        + "current_task, usage, replica) VALUES (?, ?, ?, ?, ?, COALESCE(?::jsonb, '{}'), ?) "
                        + "ON CONFLICT (team, name) DO UPDATE SET phase = EXCLUDED.phase, reason = EXCLUDED.reason, "
                        // a phase names its task when it knows it; else the task claimed (task_claimed) stays, until
                        // shutdown (the lead releases a shut-down teammate's tasks)
                        + "current_task = COALESCE(EXCLUDED.current_task, CASE WHEN EXCLUDED.phase = ? THEN NULL "
                        + "ELSE lead.roster.current_task END), usage = COALESCE(?::jsonb, lead.roster.usage), "
                        + "replica = COALESCE(EXCLUDED.replica, lead.roster.replica), "
                        + "turn_id = CASE WHEN EXCLUDED.phase = ? THEN NULL ELSE lead.roster.turn_id END, updated_at = now()")) {
                    String usageJson = usage == null || !usage.isObject() ? null : Json.write(usage);
                    Sql.bind(ps, e.team(), name, phase, text(d, "reason", null), text(d, "currentTask", null),
                            usageJson, text(d, "replica", null), SHUTDOWN, usageJson, SHUTDOWN);
                    ps.executeUpdate();
                }
            }
            case TURN_STARTED, TURN_COMPLETED -> {
                if (e.agent() == null || Ids.LEAD.equals(e.agent())) {
                    return;
                }
                try (PreparedStatement ps = c.prepareStatement("UPDATE lead.roster SET turn_id = ?, updated_at = now() "
                        + "WHERE team = ? AND name = ?")) {
                    Sql.bind(ps, e.type() == EventType.TURN_STARTED ? text(d, "turnId", null) : null, e.team(),
                            e.agent());
                    ps.executeUpdate();
                }
            }
            case TASK_CLAIMED -> {
                // the roster's current task is the one its holder claimed last (claim or claim-next)
                String owner = text(d, "owner", null);
                if (owner == null || Ids.LEAD.equals(owner)) {
                    return;
                }
                try (PreparedStatement ps = c.prepareStatement("UPDATE lead.roster SET current_task = ?, updated_at = now() "
                        + "WHERE team = ? AND name = ?")) {
                    Sql.bind(ps, text(d, "id", null), e.team(), owner);
                    ps.executeUpdate();
                }
            }
            case TASK_COMPLETED -> clearTask(c, e.team(), text(d, "id", null));
            default -> {
            }
        }
    }

    /**
     * {@link #project} for several newly stored events, in their order, on their transaction's connection. A run of
     * consecutive {@code task_claimed} events (a batched claim's) becomes one {@code UPDATE … FROM unnest} (one
     * UPDATE per claim was a third of a batched claim's statements); within a run only the last claim of
     * an owner counts, as it would applied one by one. Every other event is projected alone, so the order of effects
     * is that of the events.
     */
    public static void projectAll(Connection c, List<Event> events) throws SQLException {
        Map<String, String> run = new LinkedHashMap<>(); // owner → the task it claimed last in this run
        String runTeam = null;
        for (Event e : events) {
            String owner = claimOwner(e);
            if (owner == null || !Objects.equals(e.team(), runTeam)) {
                flushClaims(c, runTeam, run); // the run ends: its effects come before this event's
            }
            if (owner == null) {
                project(c, e);
            } else {
                runTeam = e.team();
                run.put(owner, text(e.data(), "id", null));
            }
        }
        flushClaims(c, runTeam, run);
    }

    /** The owner a {@code task_claimed} sets the current task of, or null (another event, or the lead's claim). */
    private static String claimOwner(Event e) {
        if (e.type() != EventType.TASK_CLAIMED || e.team() == null || e.data() == null) {
            return null;
        }
        String owner = text(e.data(), "owner", null);
        return owner == null || Ids.LEAD.equals(owner) ? null : owner;
    }

    /** One statement for a run of claims (a single one as {@link #project} writes it); empties {@code run}. */
    private static void flushClaims(Connection c, String team, Map<String, String> run) throws SQLException {
        if (run.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement("UPDATE lead.roster r SET current_task = u.task, updated_at = now() "
                + "FROM unnest(?::text[], ?::text[]) AS u(name, task) WHERE r.team = ? AND r.name = u.name")) {
            ps.setArray(1, c.createArrayOf("text", run.keySet().toArray(String[]::new)));
            ps.setArray(2, c.createArrayOf("text", run.values().toArray(String[]::new)));
            ps.setString(3, team);
            ps.executeUpdate();
        }
        run.clear();
    }

    /** Nobody works on {@code taskId} any more (completed, released, lease expired): whoever showed it, shows none. */
    public void clearTask(String team, String taskId) {
        Sql.inTransaction(ds, "clear task " + taskId + " from the roster of " + team, c -> {
            clearTask(c, team, taskId);
            return null;
        });
    }

    private static void clearTask(Connection c, String team, String taskId) throws SQLException {
        if (taskId == null) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement("UPDATE lead.roster SET current_task = NULL, updated_at = now() "
                + "WHERE team = ? AND current_task = ?")) {
            ps.setString(1, team);
            ps.setString(2, taskId);
            ps.executeUpdate();
        }
    }

    public static Optional<RosterRow> find(Connection c, String team, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM lead.roster WHERE team = ? AND name = ?")) {
            ps.setString(1, team);
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(row(rs)) : Optional.empty();
            }
        }
    }

    private static List<RosterRow> list(Connection c, String team) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM lead.roster WHERE team = ? ORDER BY name")) {
            ps.setString(1, team);
            try (ResultSet rs = ps.executeQuery()) {
                List<RosterRow> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(row(rs));
                }
                return out;
            }
        }
    }

    private static String text(JsonNode d, String field, String fallback) {
        JsonNode v = d.get(field);
        return v == null || v.isNull() || v.asText().isBlank() ? fallback : v.asText();
    }

    private static RosterRow row(ResultSet rs) throws SQLException {
        JsonNode usage;
        try {
            usage = Json.MAPPER.readTree(rs.getString(9));
        } catch (Exception ex) {
            usage = Json.MAPPER.createObjectNode();
        }
        return new RosterRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getBoolean(4), rs.getString(5),
                rs.getString(6), rs.getString(7), rs.getString(8), usage, rs.getString(10),
                rs.getTimestamp(11).toInstant(), rs.getTimestamp(12).toInstant());
    }
}
