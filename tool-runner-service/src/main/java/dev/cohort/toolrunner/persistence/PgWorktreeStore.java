package dev.cohort.toolrunner.persistence;

import dev.cohort.platform.sql.Sql;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/** In PostgreSQL: {@code toolrunner.worktrees} (live worktrees with their base commit) and {@code worktree_events} (audit). */
@ApplicationScoped
@Typed(PgWorktreeStore.class)
public class PgWorktreeStore implements WorktreeStore {
    /** Looked up when used: a team sandbox has no database, and nothing there reaches this store. */
    @Inject
    Instance<DataSource> dataSource;

    private DataSource ds() {
        return dataSource.get();
    }

    @Override
    public boolean insert(Row r) throws SQLException {
        try (Connection c = ds().getConnection(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO toolrunner.worktrees (team, name, branch, base_commit, path, task_id, status, created_by)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")) {
            Sql.bind(ps, r.team(), r.name(), r.branch(), r.baseCommit(), r.path(), r.taskId(), r.status(),
                    r.createdBy());
            return ps.executeUpdate() == 1;
        }
    }

    @Override
    public Optional<Row> find(String team, String name) throws SQLException {
        try (Connection c = ds().getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT team, name, branch, base_commit, path, task_id, status, created_by, created_at"
                        + " FROM toolrunner.worktrees WHERE team = ? AND name = ?")) {
            ps.setString(1, team);
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(map(rs)) : Optional.empty();
            }
        }
    }

    @Override
    public List<Row> list(String team) throws SQLException {
        List<Row> out = new ArrayList<>();
        try (Connection c = ds().getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT team, name, branch, base_commit, path, task_id, status, created_by, created_at"
                        + " FROM toolrunner.worktrees WHERE team = ? ORDER BY created_at, name")) {
            ps.setString(1, team);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(map(rs));
                }
            }
        }
        return out;
    }

    @Override
    public boolean delete(String team, String name) throws SQLException {
        try (Connection c = ds().getConnection(); PreparedStatement ps = c.prepareStatement(
                "DELETE FROM toolrunner.worktrees WHERE team = ? AND name = ?")) {
            ps.setString(1, team);
            ps.setString(2, name);
            return ps.executeUpdate() == 1;
        }
    }

    @Override
    public void setStatus(String team, String name, String status) throws SQLException {
        try (Connection c = ds().getConnection(); PreparedStatement ps = c.prepareStatement(
                "UPDATE toolrunner.worktrees SET status = ? WHERE team = ? AND name = ?")) {
            Sql.bind(ps, status, team, name);
            ps.executeUpdate();
        }
    }

    @Override
    public void event(String team, String name, String event, String taskId, String baseCommit, String agent,
            String detail) throws SQLException {
        try (Connection c = ds().getConnection(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO toolrunner.worktree_events (team, name, event, task_id, base_commit, agent, detail)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            Sql.bind(ps, team, name, event, taskId, baseCommit, agent, detail);
            ps.executeUpdate();
        }
    }

    @Override
    public List<EventRow> events(String team, String name) throws SQLException {
        List<EventRow> out = new ArrayList<>();
        try (Connection c = ds().getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT team, name, event, task_id, base_commit, agent, detail, at FROM toolrunner.worktree_events"
                        + " WHERE team = ? AND name = ? ORDER BY id")) {
            ps.setString(1, team);
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new EventRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                            rs.getString(5), rs.getString(6), rs.getString(7), rs.getTimestamp(8).toInstant()));
                }
            }
        }
        return out;
    }

    private static Row map(ResultSet rs) throws SQLException {
        return new Row(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                rs.getString(6), rs.getString(7), rs.getString(8), rs.getTimestamp(9).toInstant());
    }
}
