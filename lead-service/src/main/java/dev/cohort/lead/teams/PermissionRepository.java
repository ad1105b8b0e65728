package dev.cohort.lead.teams;

import dev.cohort.core.engine.permission.PermissionRuleSet;
import dev.cohort.core.protocol.Json;
import dev.cohort.platform.sql.Sql;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

/**
 * A team's permission rules set over the API ({@code lead.team_permissions}, V22), stored validated as
 * {@code {"allow", "ask", "deny"}}. Every write of the table goes through this class. The lead reads them once per
 * turn start (one primary-key query, as for the team's hooks), so a change applies from each agent's next turn, also
 * one made on another replica.
 */
@ApplicationScoped
public class PermissionRepository {

    @Inject
    AgroalDataSource ds;

    /** The team's rules as stored now; {@link PermissionRuleSet#EMPTY} when it set none. */
    public PermissionRuleSet find(String team) {
        return Sql.inTransaction(ds, "permission rules of team " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT rules FROM lead.team_permissions WHERE team = ?")) {
                ps.setString(1, team);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Json.read(rs.getString(1), PermissionRuleSet.class) : PermissionRuleSet.EMPTY;
                }
            }
        });
    }

    /** Replaces the team's rules by {@code rules} (already validated); empty lists remove the row. */
    public void save(String team, PermissionRuleSet rules) {
        Sql.inTransaction(ds, "set permission rules of team " + team, c -> {
            if (rules.isEmpty()) {
                try (PreparedStatement ps = c.prepareStatement("DELETE FROM lead.team_permissions WHERE team = ?")) {
                    ps.setString(1, team);
                    ps.executeUpdate();
                }
                return null;
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO lead.team_permissions (team, rules) VALUES (?,"
                    + " CAST(? AS jsonb)) ON CONFLICT (team) DO UPDATE SET rules = EXCLUDED.rules, updated_at = now()")) {
                ps.setString(1, team);
                ps.setString(2, Json.write(rules));
                ps.executeUpdate();
            }
            return null;
        });
    }
}
