package dev.cohort.teammate.tasks;

import dev.cohort.platform.sql.Sql;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The task a teammate holds ({@code teammate.teammates.current_task / lease_token / worktree}, V5): what its cwd is,
 * what the replica's heartbeat loop renews, what {@code complete_task} proves its claim with. Every write is one
 * conditional statement.
 */
@ApplicationScoped
public class HeldTaskRepository {

    /** A held task: {@code worktree} null when the task is not bound to one. */
    public record Held(String team, String name, String taskId, String leaseToken, String worktree) {
    }

    @Inject
    AgroalDataSource ds;

    public Optional<Held> find(String team, String name) {
        return Sql.inTransaction(ds, "read the task of " + team + "/" + name, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT team, name, current_task, lease_token, worktree "
                    + "FROM teammate.teammates WHERE team = ? AND name = ? AND current_task IS NOT NULL")) {
                ps.setString(1, team);
                ps.setString(2, name);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(row(rs)) : Optional.<Held>empty();
                }
            }
        });
    }

    /** Records the claim (replacing whatever the teammate held: the lead handed it this task now). */
    public void bind(String team, String name, String taskId, String leaseToken, String worktree) {
        Sql.inTransaction(ds, "bind a task to " + team + "/" + name, c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE teammate.teammates SET current_task = ?, lease_token = ?, "
                    + "worktree = ?, updated_at = now() WHERE team = ? AND name = ?")) {
                Sql.bind(ps, taskId, leaseToken, worktree, team, name);
                return ps.executeUpdate();
            }
        });
    }

    /** Clears the binding if the teammate still holds {@code taskId} (a newer claim is left alone); true when cleared. */
    public boolean clear(String team, String name, String taskId) {
        return Sql.inTransaction(ds, "clear the task of " + team + "/" + name, c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE teammate.teammates SET current_task = NULL, "
                    + "lease_token = NULL, worktree = NULL, updated_at = now() WHERE team = ? AND name = ? "
                    + "AND current_task = ?")) {
                Sql.bind(ps, team, name, taskId);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** The tasks held by the active teammates this replica ({@code owner}) hosts, for its heartbeat loop. */
    public List<Held> hostedBy(String owner) {
        return Sql.inTransaction(ds, "read the tasks held on " + owner, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT t.team, t.name, t.current_task, t.lease_token, t.worktree "
                    + "FROM teammate.teammates t JOIN teammate.agents a ON a.team = t.team AND a.name = t.name "
                    + "WHERE a.owner = ? AND t.current_task IS NOT NULL AND t.lifecycle = 'active' ORDER BY t.team")) {
                ps.setString(1, owner);
                try (ResultSet rs = ps.executeQuery()) {
                    List<Held> out = new ArrayList<>();
                    while (rs.next()) {
                        out.add(row(rs));
                    }
                    return out;
                }
            }
        });
    }

    private static Held row(ResultSet rs) throws SQLException {
        return new Held(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5));
    }
}
