package dev.cohort.toolrunner.persistence;

import dev.cohort.core.toolrunner.BackgroundJob;
import dev.cohort.platform.sql.Sql;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/** {@code toolrunner.background_jobs} in PostgreSQL: the runner's (and the control half's) background-job records. */
@ApplicationScoped
@Typed(PgBackgroundJobStore.class)
public class PgBackgroundJobStore implements BackgroundJobStore {
    private static final String COLUMNS = "id, team, agent, call_id, command, status, exit_code, duration_ms, summary,"
            + " output_ref, error, started_at, finished_at";

    /** Looked up when used: a team sandbox has no database, and nothing there reaches this store. */
    @Inject
    Instance<DataSource> dataSource;

    private DataSource ds() {
        return dataSource.get();
    }

    @Override
    public void insert(String id, String team, String agent, String callId, String command, String cwd,
            String outputRef, String instance) throws SQLException {
        try (Connection c = ds().getConnection(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO toolrunner.background_jobs (id, team, agent, call_id, command, cwd, status, output_ref,"
                        + " instance_id) VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?)")) {
            Sql.bind(ps, id, team, agent, callId, command, cwd, outputRef, instance);
            ps.executeUpdate();
        }
    }

    @Override
    public boolean finish(String id, String status, Integer exitCode, String error, String summary, long durationMs)
            throws SQLException {
        try (Connection c = ds().getConnection(); PreparedStatement ps = c.prepareStatement(
                "UPDATE toolrunner.background_jobs SET status = ?, exit_code = ?, error = ?, summary = ?,"
                        + " duration_ms = ?, finished_at = now() WHERE id = ? AND status = 'running'")) {
            ps.setString(1, status);
            if (exitCode == null) {
                ps.setNull(2, Types.INTEGER);
            } else {
                ps.setInt(2, exitCode);
            }
            ps.setString(3, error);
            ps.setString(4, summary);
            ps.setLong(5, durationMs);
            ps.setString(6, id);
            return ps.executeUpdate() == 1;
        }
    }

    @Override
    public void markNotified(String id) throws SQLException {
        try (Connection c = ds().getConnection(); PreparedStatement ps = c.prepareStatement(
                "UPDATE toolrunner.background_jobs SET notified_at = now() WHERE id = ?")) {
            ps.setString(1, id);
            ps.executeUpdate();
        }
    }

    @Override
    public Optional<BackgroundJob> find(String id) throws SQLException {
        try (Connection c = ds().getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT " + COLUMNS + " FROM toolrunner.background_jobs WHERE id = ?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(map(rs)) : Optional.empty();
            }
        }
    }

    @Override
    public int countRunning(String team) throws SQLException {
        try (Connection c = ds().getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT count(*) FROM toolrunner.background_jobs WHERE team = ? AND status = 'running'")) {
            ps.setString(1, team);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    @Override
    public List<BackgroundJob> failRunning(String instance, String error) throws SQLException {
        List<BackgroundJob> out = new ArrayList<>();
        try (Connection c = ds().getConnection(); PreparedStatement ps = c.prepareStatement(
                "UPDATE toolrunner.background_jobs SET status = 'failed', error = ?, finished_at = now(),"
                        + " duration_ms = (extract(epoch FROM now() - started_at) * 1000)::bigint"
                        + " WHERE status = 'running' AND instance_id = ? RETURNING " + COLUMNS)) {
            ps.setString(1, error);
            ps.setString(2, instance);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(map(rs));
                }
            }
        }
        return out;
    }

    @Override
    public List<BackgroundJob> unnotified() throws SQLException {
        List<BackgroundJob> out = new ArrayList<>();
        try (Connection c = ds().getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT " + COLUMNS + " FROM toolrunner.background_jobs WHERE status <> 'running'"
                        + " AND notified_at IS NULL ORDER BY finished_at")) {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(map(rs));
                }
            }
        }
        return out;
    }

    private static BackgroundJob map(ResultSet rs) throws SQLException {
        Timestamp s = rs.getTimestamp("started_at");
        Timestamp f = rs.getTimestamp("finished_at");
        int exit = rs.getInt("exit_code");
        Integer exitCode = rs.wasNull() ? null : exit;
        long d = rs.getLong("duration_ms");
        Long dur = rs.wasNull() ? null : d;
        return new BackgroundJob(rs.getString("id"), rs.getString("team"), rs.getString("agent"),
                rs.getString("call_id"), rs.getString("command"), rs.getString("status"), exitCode, dur,
                rs.getString("summary"), rs.getString("output_ref"), rs.getString("error"),
                s == null ? null : s.toInstant(), f == null ? null : f.toInstant());
    }
}
