package dev.cohort.teammate.protocols;

import dev.cohort.platform.sql.Sql;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

/**
 * {@code teammate.plan_gates}: whether a teammate's mutating tools wait for an approved plan. The
 * gate of the teammate's current spawn: no row (or a row of an earlier spawn) follows {@code plan_mode}.
 */
@ApplicationScoped
public class PlanGateRepository {

    public static final String CLOSED = "closed";
    public static final String OPEN = "open";

    @Inject
    AgroalDataSource ds;

    /** True while the teammate may not mutate (an unknown teammate is not gated: it runs nothing). */
    public boolean closed(String team, String name) {
        return Sql.inTransaction(ds, "read the plan gate of " + team + "/" + name, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT t.plan_mode, g.state FROM teammate.teammates t "
                    + "LEFT JOIN teammate.plan_gates g ON g.team = t.team AND g.name = t.name "
                    + "AND g.spawn_message_id = t.spawn_message_id WHERE t.team = ? AND t.name = ?")) {
                ps.setString(1, team);
                ps.setString(2, name);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return false;
                    }
                    String state = rs.getString(2);
                    return state == null ? rs.getBoolean(1) : CLOSED.equals(state);
                }
            }
        });
    }

    /** Sets the gate of the teammate's current spawn to {@code state} ({@link #OPEN} / {@link #CLOSED}). */
    public void set(String team, String name, String state, String requestId) {
        Sql.inTransaction(ds, "set the plan gate of " + team + "/" + name, c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO teammate.plan_gates (team, name, spawn_message_id, "
                    + "state, request_id) SELECT team, name, spawn_message_id, ?, ? FROM teammate.teammates WHERE team = ? "
                    + "AND name = ? ON CONFLICT (team, name) DO UPDATE SET spawn_message_id = EXCLUDED.spawn_message_id, "
                    + "state = EXCLUDED.state, request_id = EXCLUDED.request_id, updated_at = now()")) {
                Sql.bind(ps, state, requestId, team, name);
                return ps.executeUpdate();
            }
        });
    }
}
