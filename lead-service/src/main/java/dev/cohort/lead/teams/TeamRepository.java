package dev.cohort.lead.teams;

import dev.cohort.platform.sql.Sql;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.List;
import java.util.Optional;

/**
 * Teams in {@code lead.teams}. Every write of the table goes through this class; {@link #cached} serves the lead's
 * per-tool-call reads (the permission mode, the workspace) from the row last read or written here.
 */
@ApplicationScoped
public class TeamRepository {

    @Inject
    AgroalDataSource ds;

    /** Rows as last read here; a write removes the team's entry (teams are never deleted, only created or edited). */
    private final ConcurrentHashMap<String, TeamRow> rows = new ConcurrentHashMap<>();

    /** Bumped after every write: a read that overlapped a write does not fill the cache (it may hold the old row). */
    private final AtomicLong writes = new AtomicLong();

    /**
     * The team's row without a query when one was read here since the last write through this repository (a read
     * that finds nothing is not remembered). Every {@link #find} refreshes it, so a row changed outside this class
     * (by hand, by another replica's write) is seen here after the next {@code find} of the team (the lead's turn
     * start reads the team's hooks with one).
     */
    public Optional<TeamRow> cached(String id) {
        TeamRow r = rows.get(id);
        return r != null ? Optional.of(r) : find(id);
    }

    private void written(String id) {
        synchronized (rows) {
            writes.incrementAndGet();
            rows.remove(id);
        }
    }

    /** Inserts a team; false when the id is taken (one conditional statement, no read-then-write race). */
    public boolean insert(String id, String workspace, String permissionMode) {
        return insert(id, workspace, permissionMode, null);
    }

    /** Inserts a team with its command hooks (validated JSON, {@code null} = none); false when the id is taken. */
    public boolean insert(String id, String workspace, String permissionMode, String hooks) {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO lead.teams (id, workspace, permission_mode, hooks)"
                        + " VALUES (?, ?, ?, CAST(? AS jsonb)) ON CONFLICT (id) DO NOTHING")) {
            Sql.bind(ps, id, workspace, permissionMode, hooks);
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot insert team " + id, e);
        } finally {
            written(id);
        }
    }

    /** Replaces the team's command hooks (validated JSON, {@code null} = none); false for an unknown team. */
    public boolean setHooks(String id, String hooks) {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("UPDATE lead.teams SET hooks = CAST(? AS jsonb) WHERE id = ?")) {
            ps.setString(1, hooks);
            ps.setString(2, id);
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot set the hooks of team " + id, e);
        } finally {
            written(id);
        }
    }

    /** The team's row as stored now (one query); refreshes {@link #cached}. */
    public Optional<TeamRow> find(String id) {
        long w = writes.get();
        Optional<TeamRow> found = query(id);
        synchronized (rows) {
            if (found.isPresent() && writes.get() == w) {
                rows.put(id, found.get());
            }
        }
        return found;
    }

    private Optional<TeamRow> query(String id) {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT id, workspace, permission_mode, created_at, hooks FROM lead.teams WHERE id = ?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(row(rs)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read team " + id, e);
        }
    }

    public boolean exists(String id) {
        return find(id).isPresent();
    }

    public List<TeamRow> list() {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT id, workspace, permission_mode, created_at, hooks FROM lead.teams ORDER BY id");
                ResultSet rs = ps.executeQuery()) {
            List<TeamRow> out = new ArrayList<>();
            while (rs.next()) {
                out.add(row(rs));
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot list teams", e);
        }
    }

    private static TeamRow row(ResultSet rs) throws SQLException {
        return new TeamRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getTimestamp(4).toInstant(), rs.getString(5));
    }
}
