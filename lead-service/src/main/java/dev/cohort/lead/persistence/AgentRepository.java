package dev.cohort.lead.persistence;

import dev.cohort.core.engine.Usage;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Durable agent state in {@code lead.agents}, saved after every step with a version fence. A replica that starts
 * hosting an agent {@link #adopt adopts} it, which bumps the version: from then on only the newest owner can save,
 * and a late save of an older owner raises {@link OwnershipLostException} (that owner lets the agent go).
 */
@ApplicationScoped
public class AgentRepository {

    /** A stored agent. */
    public record AgentRow(String team, String name, String stateJson, long version, String status, String turnId,
            Instant updatedAt, String owner) {
    }

    /** The save matched no row: another replica took the agent over (or it was reset). */
    public static class OwnershipLostException extends RuntimeException {
        public OwnershipLostException(String message) {
            super(message);
        }
    }

    /** The columns {@link #row} reads, in its order. */
    private static final String COLUMNS = "team, name, state::text, version, status, turn_id, updated_at, owner";

    @Inject
    AgroalDataSource ds;

    /**
     * Takes the agent over for {@code owner} (a replica's instance id) in one statement: the row is created with
     * {@code emptyStateJson} on first use, otherwise its version is bumped and the owner recorded; returns the state
     * and the new version. Any save still holding an older version (the previous owner's) is refused from now on, so
     * the newest owner wins, never the first writer.
     */
    public AgentRow adopt(String team, String name, String emptyStateJson, String owner) {
        if (owner == null || owner.isBlank()) {
            throw new IllegalArgumentException("adopting agent " + team + "/" + name + " needs the adopting instance's id");
        }
        return Jdbc.inTransaction(ds, "adopt agent " + team + "/" + name, c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO lead.agents AS a (team, name, state, owner) "
                    + "VALUES (?, ?, ?::jsonb, ?) ON CONFLICT (team, name) DO UPDATE SET version = a.version + 1, "
                    + "owner = EXCLUDED.owner RETURNING " + COLUMNS)) {
                ps.setString(1, team);
                ps.setString(2, name);
                ps.setString(3, emptyStateJson);
                ps.setString(4, owner);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return row(rs);
                }
            }
        });
    }

    public Optional<AgentRow> find(String team, String name) {
        return Jdbc.inTransaction(ds, "read agent " + team + "/" + name, c -> find(c, team, name));
    }

    public List<AgentRow> list(String team) {
        return Jdbc.inTransaction(ds, "list agents of " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT " + COLUMNS + " FROM lead.agents WHERE team = ? ORDER BY name")) {
                ps.setString(1, team);
                try (ResultSet rs = ps.executeQuery()) {
                    List<AgentRow> out = new ArrayList<>();
                    while (rs.next()) {
                        out.add(row(rs));
                    }
                    return out;
                }
            }
        });
    }

    /**
     * The usage of all the team's agents together (input and output tokens, calls, cost), summed from the usage each
     * one's saved state carries, so it is as fresh as the last step each agent saved; {@link Usage#ZERO} for a team
     * without agents. The per-team budget ({@code cohort.engine.budgets.*-per-team}) is checked against it.
     */
    public Usage teamUsage(String team) {
        return Jdbc.inTransaction(ds, "usage of team " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT COALESCE(SUM((state->'usage'->>'inputTokens')::bigint), 0), "
                    + "COALESCE(SUM((state->'usage'->>'outputTokens')::bigint), 0), COALESCE(SUM((state->'usage'->>'calls')::bigint), 0), "
                    + "COALESCE(SUM((state->'usage'->>'costUsd')::float8), 0) FROM lead.agents WHERE team = ?")) {
                ps.setString(1, team);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return new Usage(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getDouble(4));
                }
            }
        });
    }

    /**
     * Saves the state if the stored version is still {@code expectedVersion}, and in the same transaction marks the
     * prompts and inbox messages that this state now contains as injected. Returns the new version.
     */
    public long save(String team, String name, String stateJson, String status, String turnId, long expectedVersion,
            List<String> injectedPrompts, List<String> injectedInbox) {
        return Jdbc.inTransaction(ds, "save agent " + team + "/" + name, c -> {
            long v;
            try (PreparedStatement ps = c.prepareStatement("UPDATE lead.agents SET state = ?::jsonb, status = ?, turn_id = ?, "
                    + "version = version + 1, updated_at = now() WHERE team = ? AND name = ? AND version = ? RETURNING version")) {
                ps.setString(1, stateJson);
                ps.setString(2, status);
                ps.setString(3, turnId);
                ps.setString(4, team);
                ps.setString(5, name);
                ps.setLong(6, expectedVersion);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new OwnershipLostException("agent " + team + "/" + name + " was saved by someone else (expected version "
                                + expectedVersion + ")");
                    }
                    v = rs.getLong(1);
                }
            }
            if (turnId != null) {
                // the prompt that started this turn learns the turn id at the turn's first save
                try (PreparedStatement ps = c.prepareStatement(
                        "UPDATE lead.prompts SET turn_id = ? WHERE team = ? AND status = 'running' AND turn_id IS NULL")) {
                    ps.setString(1, turnId);
                    ps.setString(2, team);
                    ps.executeUpdate();
                }
            }
            mark(c, "UPDATE lead.prompts SET status = 'injected', turn_id = ? WHERE team = ? AND id = ? AND status = 'received'",
                    turnId, team, injectedPrompts);
            mark(c, "UPDATE lead.inbox SET status = 'injected' WHERE status = 'received' AND ? IS NOT NULL AND team = ? AND id = ?",
                    turnId == null ? "-" : turnId, team, injectedInbox);
            return v;
        });
    }

    private static void mark(Connection c, String sql, String turnId, String team, List<String> ids) throws SQLException {
        if (ids.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (String id : ids) {
                ps.setString(1, turnId);
                ps.setString(2, team);
                ps.setString(3, id);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private static Optional<AgentRow> find(Connection c, String team, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT " + COLUMNS + " FROM lead.agents WHERE team = ? AND name = ?")) {
            ps.setString(1, team);
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(row(rs)) : Optional.empty();
            }
        }
    }

    private static AgentRow row(ResultSet rs) throws SQLException {
        return new AgentRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getString(5), rs.getString(6),
                rs.getTimestamp(7).toInstant(), rs.getString(8));
    }
}
