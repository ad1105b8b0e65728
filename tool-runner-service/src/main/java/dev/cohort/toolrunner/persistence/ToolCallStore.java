package dev.cohort.toolrunner.persistence;

import dev.cohort.core.protocol.Json;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.platform.sql.Sql;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * {@code toolrunner.tool_calls}: one row per (team, agent, callId). Claiming a call is one conditional insert, so
 * two deliveries of the same call can never both execute it.
 */
@ApplicationScoped
public class ToolCallStore {
    /** Looked up when used: a team sandbox has no database, and nothing there reaches this store. */
    @Inject
    Instance<DataSource> dataSource;

    private DataSource ds() {
        return dataSource.get();
    }

    /** A recorded call; {@code instanceId}: the runner instance that claimed (and ran) it. */
    public record Recorded(String tool, String argsHash, String status, ToolCallResult result, String instanceId) {
    }

    /** Inserts a {@code running} row; {@code false} when the call id was already recorded. */
    public boolean claim(String team, String agent, String callId, String tool, String argsHash, String cwd,
            String instance) throws SQLException {
        try (Connection c = ds().getConnection(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO toolrunner.tool_calls (team, agent, call_id, tool, args_hash, cwd, status, instance_id)"
                        + " VALUES (?, ?, ?, ?, ?, ?, 'running', ?) ON CONFLICT DO NOTHING")) {
            setCall(ps, team, agent, callId, tool, argsHash, cwd, instance);
            return ps.executeUpdate() == 1;
        }
    }

    /**
     * Records a finished read-only call in one statement; {@code false} when the call id was already recorded.
     * Reads are not journaled before they run (running one twice changes nothing), so this is their only write.
     */
    public boolean record(String team, String agent, String callId, String tool, String argsHash, String cwd,
            String instance, ToolCallResult r) throws SQLException {
        try (Connection c = ds().getConnection(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO toolrunner.tool_calls (team, agent, call_id, tool, args_hash, cwd, status, instance_id,"
                        + " finished_at, duration_ms, exit_code, error, result)"
                        + " VALUES (?, ?, ?, ?, ?, ?, 'done', ?, now(), ?, ?, ?, CAST(? AS jsonb)) ON CONFLICT DO NOTHING")) {
            setCall(ps, team, agent, callId, tool, argsHash, cwd, instance);
            ps.setLong(8, r.durationMs());
            if (r.exitCode() == null) {
                ps.setNull(9, Types.INTEGER);
            } else {
                ps.setInt(9, r.exitCode());
            }
            ps.setString(10, storable(r.error()));
            ps.setString(11, Json.write(storable(r)));
            return ps.executeUpdate() == 1;
        }
    }

    /**
     * The result as PostgreSQL can store it: text there holds no NUL character (a command that printed binary output,
     * {@code cat /dev/zero}), so each one becomes U+FFFD, as an undecodable byte already does.
     */
    static ToolCallResult storable(ToolCallResult r) {
        return new ToolCallResult(storable(r.output()), storable(r.error()), r.exitCode(), r.truncated(), r.outputRef(),
                r.durationMs(), storable(r.stderr()));
    }

    static String storable(String s) {
        return s == null || s.indexOf('\0') < 0 ? s : s.replace('\0', '\uFFFD');
    }

    /** Parameters 1–7 of both inserts: the call's identity and where it ran. */
    private static void setCall(PreparedStatement ps, String team, String agent, String callId, String tool,
            String argsHash, String cwd, String instance) throws SQLException {
        Sql.bind(ps, team, agent, callId, tool, argsHash, cwd, instance);
    }

    /** Stores the result of a claimed call. */
    public void finish(String team, String agent, String callId, ToolCallResult r) throws SQLException {
        try (Connection c = ds().getConnection(); PreparedStatement ps = c.prepareStatement(
                "UPDATE toolrunner.tool_calls SET status = 'done', finished_at = now(), duration_ms = ?, exit_code = ?,"
                        + " error = ?, result = CAST(? AS jsonb) WHERE team = ? AND agent = ? AND call_id = ?")) {
            ps.setLong(1, r.durationMs());
            if (r.exitCode() == null) {
                ps.setNull(2, Types.INTEGER);
            } else {
                ps.setInt(2, r.exitCode());
            }
            ps.setString(3, storable(r.error()));
            ps.setString(4, Json.write(storable(r)));
            ps.setString(5, team);
            ps.setString(6, agent);
            ps.setString(7, callId);
            ps.executeUpdate();
        }
    }

    public Optional<Recorded> find(String team, String agent, String callId) throws SQLException {
        try (Connection c = ds().getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT tool, args_hash, status, result::text, instance_id FROM toolrunner.tool_calls"
                        + " WHERE team = ? AND agent = ? AND call_id = ?")) {
            Sql.bind(ps, team, agent, callId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                String json = rs.getString(4);
                return Optional.of(new Recorded(rs.getString(1), rs.getString(2), rs.getString(3),
                        json == null ? null : Json.read(json, ToolCallResult.class), rs.getString(5)));
            }
        }
    }

    /** How many times a call id was recorded (for tests and audits: always 0 or 1). */
    public int count(String team, String agent, String callId) throws SQLException {
        try (Connection c = ds().getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT count(*) FROM toolrunner.tool_calls WHERE team = ? AND agent = ? AND call_id = ?")) {
            Sql.bind(ps, team, agent, callId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /**
     * At start-up: calls this instance was running when it stopped are marked {@code interrupted} with a stored
     * result saying so, so a retry is answered "outcome unknown" instead of running the tool a second time.
     */
    public int markInterrupted(String instance, ToolCallResult interrupted) throws SQLException {
        try (Connection c = ds().getConnection(); PreparedStatement ps = c.prepareStatement(
                "UPDATE toolrunner.tool_calls SET status = 'interrupted', finished_at = now(), error = ?,"
                        + " result = CAST(? AS jsonb) WHERE status = 'running' AND instance_id = ?")) {
            Sql.bind(ps, interrupted.error(), Json.write(interrupted), instance);
            return ps.executeUpdate();
        }
    }
}
