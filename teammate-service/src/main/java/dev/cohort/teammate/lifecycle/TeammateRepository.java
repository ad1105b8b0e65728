package dev.cohort.teammate.lifecycle;

import dev.cohort.core.engine.Usage;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.team.TeamChannel;
import dev.cohort.host.store.PgInbox;
import dev.cohort.platform.sql.Sql;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code teammate.teammates} (the registry: who exists in a team, active or shut down) and the reads of
 * {@code teammate.agents}/{@code teammate.inbox} the teammate host needs (usage, current turn, the whole inbox for
 * {@code check_inbox}). Every write is one conditional statement.
 */
@ApplicationScoped
public class TeammateRepository {

    /** A registered teammate. */
    public record TeammateRow(String team, String name, String role, boolean planMode, String lifecycle,
            String shutdownReason, String spawnMessageId, Instant idleDeadline) {
        public boolean active() {
            return ACTIVE.equals(lifecycle);
        }

        public AgentKey key() {
            return new AgentKey(team, name);
        }
    }

    public static final String ACTIVE = "active";
    public static final String SHUTDOWN = "shutdown";

    private static final String COLUMNS = "team, name, role, plan_mode, lifecycle, shutdown_reason, spawn_message_id, idle_deadline";

    @Inject
    AgroalDataSource ds;

    @Inject
    PgInbox inbox;

    public Optional<TeammateRow> find(String team, String name) {
        return Sql.single(ds, "read teammate " + team + "/" + name, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM teammate.teammates WHERE team = ? AND name = ?")) {
                ps.setString(1, team);
                ps.setString(2, name);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(row(rs)) : Optional.<TeammateRow>empty();
                }
            }
        });
    }

    /** A teammate's row and, when it is active, its pending inbox messages (oldest first). */
    public record WithInbox(TeammateRow row, List<PgInbox.Row> pending) {
    }

    /**
     * {@link #find} and, for an active teammate, {@code PgInbox#pending} (the messages still {@code received}, oldest
     * first, at most {@code limit}) in one statement: the reads of a woken teammate's {@code next()} in one round trip.
     * Empty when there is no such teammate.
     */
    public Optional<WithInbox> findWithInbox(String team, String name, int limit) {
        return Sql.single(ds, "read teammate " + team + "/" + name + " and its inbox", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + ", CASE WHEN lifecycle = '" + ACTIVE
                    + "' THEN " + inbox.pendingJsonSql("t.team", "t.name") + " END"
                    + " FROM teammate.teammates t WHERE team = ? AND name = ?")) {
                Sql.bind(ps, limit, team, name);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(new WithInbox(row(rs), PgInbox.rows(rs.getString(9))))
                            : Optional.<WithInbox>empty();
                }
            }
        });
    }

    /** The team's teammates, by name. */
    public List<TeammateRow> ofTeam(String team) {
        return Sql.inTransaction(ds, "read teammates of " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM teammate.teammates WHERE team = ? ORDER BY name")) {
                ps.setString(1, team);
                return rows(ps);
            }
        });
    }

    /** Every active teammate (what a replica may have to host when partitions are assigned to it). */
    public List<AgentKey> activeKeys() {
        return Sql.inTransaction(ds, "read active teammates", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT team, name FROM teammate.teammates WHERE lifecycle = 'active'")) {
                try (ResultSet rs = ps.executeQuery()) {
                    List<AgentKey> out = new ArrayList<>();
                    while (rs.next()) {
                        out.add(new AgentKey(rs.getString(1), rs.getString(2)));
                    }
                    return out;
                }
            }
        });
    }

    /** Registers a new teammate, active; false when one of that name exists in the team. */
    public boolean insert(String team, String name, String role, boolean planMode, String spawnMessageId) {
        return Sql.inTransaction(ds, "register teammate " + team + "/" + name, c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO teammate.teammates (team, name, role, plan_mode, "
                    + "spawn_message_id) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")) {
                Sql.bind(ps, team, name, role, planMode, spawnMessageId);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** Restarts a shut-down teammate with a new spawn (role and plan mode as given); false when it is not shut down. */
    public boolean restart(String team, String name, String role, boolean planMode, String spawnMessageId) {
        return update("restart teammate", "UPDATE teammate.teammates SET lifecycle = 'active', shutdown_reason = NULL, "
                + "idle_deadline = NULL, role = ?, plan_mode = ?, spawn_message_id = ?, spawned_at = now(), updated_at = now() "
                + "WHERE team = ? AND name = ? AND lifecycle = 'shutdown'", team, name, ps -> {
                    Sql.bind(ps, role, planMode, spawnMessageId);
                    return 4;
                });
    }

    /** Shuts an active teammate down with {@code reason}; false when it was not active. */
    public boolean shutdown(String team, String name, String reason) {
        return update("shut teammate down", "UPDATE teammate.teammates SET lifecycle = 'shutdown', shutdown_reason = ?, "
                + "idle_deadline = NULL, updated_at = now() WHERE team = ? AND name = ? AND lifecycle = 'active'", team, name, ps -> {
                    ps.setString(1, reason);
                    return 2;
                });
    }

    /** Sets (or, with null, clears) when the idle teammate shuts down. */
    public void idleDeadline(String team, String name, Instant deadline) {
        update("set idle deadline", "UPDATE teammate.teammates SET idle_deadline = ?, updated_at = now() WHERE team = ? "
                + "AND name = ?", team, name, ps -> {
                    ps.setTimestamp(1, deadline == null ? null : Timestamp.from(deadline));
                    return 2;
                });
    }

    /** The usage saved in the teammate's state ({@link Usage#ZERO} before its first turn). */
    public Usage usage(String team, String name) {
        return Sql.inTransaction(ds, "usage of " + team + "/" + name, c -> {
            try (PreparedStatement ps = c.prepareStatement(USAGE + " WHERE team = ? AND name = ?")) {
                ps.setString(1, team);
                ps.setString(2, name);
                return usage(ps);
            }
        });
    }

    /** The usage of all the team's teammates together, summed from their saved states (the team budget). */
    public Usage teamUsage(String team) {
        return Sql.inTransaction(ds, "usage of team " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement(USAGE + " WHERE team = ?")) {
                ps.setString(1, team);
                return usage(ps);
            }
        });
    }

    private static final String USAGE = "SELECT COALESCE(SUM((state->'usage'->>'inputTokens')::bigint), 0), "
            + "COALESCE(SUM((state->'usage'->>'outputTokens')::bigint), 0), COALESCE(SUM((state->'usage'->>'calls')::bigint), 0), "
            + "COALESCE(SUM((state->'usage'->>'costUsd')::float8), 0) FROM teammate.agents";

    private static Usage usage(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return new Usage(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getDouble(4));
        }
    }

    /** Of these ids that parked teammates wait for, each with the team of the teammate waiting (the host's sweep). */
    public Map<String, List<String>> waitingByTeam(Collection<String> ids) {
        if (ids.isEmpty()) {
            return Map.of();
        }
        return Sql.inTransaction(ds, "waits of parked teammates", c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT team, waiting_for FROM teammate.agents WHERE waiting_for = ANY(?)")) {
                ps.setArray(1, c.createArrayOf("text", ids.toArray()));
                Map<String, List<String>> byTeam = new HashMap<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        byTeam.computeIfAbsent(rs.getString(1), t -> new ArrayList<>()).add(rs.getString(2));
                    }
                }
                return byTeam;
            }
        });
    }

    /**
     * Inside a save's transaction: the teammate owes the lead the result of {@code turnId} (see V3), and, working on
     * it, has no idle deadline (cleared with the turn's first save instead of in a statement of its own before it).
     */
    public void owe(Connection c, String team, String name, String turnId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE teammate.teammates SET result_owed = ?, idle_deadline = NULL"
                + " WHERE team = ? AND name = ? AND result_owed IS DISTINCT FROM ?")) {
            Sql.bind(ps, turnId, team, name, turnId);
            ps.executeUpdate();
        }
    }

    /** The result of {@code turnId} was acknowledged by the broker: nothing owed (unless a later turn owes one). */
    public void resultSent(String team, String name, String turnId) {
        Sql.inTransaction(ds, "result sent by " + team + "/" + name, c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE teammate.teammates SET result_owed = NULL"
                    + " WHERE team = ? AND name = ? AND result_owed = ?")) {
                Sql.bind(ps, team, name, turnId);
                return ps.executeUpdate();
            }
        });
    }

    /** The turn whose result the teammate still owes, if any. */
    public Optional<String> resultOwed(String team, String name) {
        return Sql.inTransaction(ds, "result owed by " + team + "/" + name, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT result_owed FROM teammate.teammates WHERE team = ? AND name = ?")) {
                ps.setString(1, team);
                ps.setString(2, name);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.ofNullable(rs.getString(1)) : Optional.<String>empty();
                }
            }
        });
    }

    /** The turn in progress of the teammate, if any (what an interrupt naming a turn is checked against). */
    public Optional<String> turnId(String team, String name) {
        return Sql.inTransaction(ds, "turn of " + team + "/" + name, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT turn_id FROM teammate.agents WHERE team = ? AND name = ?")) {
                ps.setString(1, team);
                ps.setString(2, name);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.ofNullable(rs.getString(1)) : Optional.<String>empty();
                }
            }
        });
    }

    /** The newest {@code limit} messages of the teammate's inbox, oldest first, injected or not (check_inbox). */
    public List<TeamChannel.Entry> inbox(String team, String name, int limit) {
        return Sql.inTransaction(ds, "inbox of " + team + "/" + name, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT id, sender, type, content, status, received_at FROM ("
                    + "SELECT * FROM teammate.inbox WHERE team = ? AND agent = ? ORDER BY seq DESC LIMIT ?) newest ORDER BY seq")) {
                Sql.bind(ps, team, name, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    List<TeamChannel.Entry> out = new ArrayList<>();
                    while (rs.next()) {
                        out.add(new TeamChannel.Entry(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                                !"received".equals(rs.getString(5)), rs.getTimestamp(6).toInstant()));
                    }
                    return out;
                }
            }
        });
    }

    private interface Binder {
        /** Binds the statement's leading parameters; returns the index of the team parameter. */
        int bind(PreparedStatement ps) throws SQLException;
    }

    private boolean update(String what, String sql, String team, String name, Binder binder) {
        return Sql.inTransaction(ds, what + " " + team + "/" + name, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                int i = binder.bind(ps);
                ps.setString(i, team);
                ps.setString(i + 1, name);
                return ps.executeUpdate() == 1;
            }
        });
    }

    private static List<TeammateRow> rows(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            List<TeammateRow> out = new ArrayList<>();
            while (rs.next()) {
                out.add(row(rs));
            }
            return out;
        }
    }

    private static TeammateRow row(ResultSet rs) throws SQLException {
        Timestamp d = rs.getTimestamp(8);
        return new TeammateRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getBoolean(4), rs.getString(5),
                rs.getString(6), rs.getString(7), d == null ? null : d.toInstant());
    }
}
