package dev.cohort.lead.persistence;

import dev.cohort.core.engine.Budgets;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;

/**
 * A team's own budgets ({@code lead.team_budgets}, V15; the per-day ones V16) over the {@code cohort.engine.budgets.*} defaults. Read
 * without a cache: the lead reads them at every step (one primary-key lookup) and a teammate host every few seconds,
 * so a budget raised through the API counts from the next step on every replica.
 */
@ApplicationScoped
public class BudgetRepository {

    @Inject
    AgroalDataSource ds;

    /** The team's overrides, {@link Budgets.Overrides#NONE} when it set none. */
    public Budgets.Overrides find(String team) {
        return Jdbc.inTransaction(ds, "budgets of team " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT tokens_per_turn, tokens_per_agent, tokens_per_team, "
                    + "cost_per_turn_usd, cost_per_agent_usd, cost_per_team_usd, tokens_per_team_per_day, "
                    + "cost_per_team_per_day_usd FROM lead.team_budgets WHERE team = ?")) {
                ps.setString(1, team);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Budgets.Overrides.NONE;
                    }
                    return new Budgets.Overrides(rs.getObject(1, Long.class), rs.getObject(2, Long.class),
                            rs.getObject(3, Long.class), rs.getObject(4, Double.class), rs.getObject(5, Double.class),
                            rs.getObject(6, Double.class), rs.getObject(7, Long.class), rs.getObject(8, Double.class));
                }
            }
        });
    }

    /** Replaces the team's overrides by {@code o} (a {@code null} value: the default again). */
    public void save(String team, Budgets.Overrides o) {
        Jdbc.inTransaction(ds, "set budgets of team " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO lead.team_budgets (team, tokens_per_turn, "
                    + "tokens_per_agent, tokens_per_team, cost_per_turn_usd, cost_per_agent_usd, cost_per_team_usd, "
                    + "tokens_per_team_per_day, cost_per_team_per_day_usd) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (team) DO UPDATE SET tokens_per_turn = EXCLUDED.tokens_per_turn, "
                    + "tokens_per_agent = EXCLUDED.tokens_per_agent, tokens_per_team = EXCLUDED.tokens_per_team, "
                    + "cost_per_turn_usd = EXCLUDED.cost_per_turn_usd, cost_per_agent_usd = EXCLUDED.cost_per_agent_usd, "
                    + "cost_per_team_usd = EXCLUDED.cost_per_team_usd, "
                    + "tokens_per_team_per_day = EXCLUDED.tokens_per_team_per_day, "
                    + "cost_per_team_per_day_usd = EXCLUDED.cost_per_team_per_day_usd, updated_at = now()")) {
                ps.setString(1, team);
                setLong(ps, 2, o.tokensPerTurn());
                setLong(ps, 3, o.tokensPerAgent());
                setLong(ps, 4, o.tokensPerTeam());
                setDouble(ps, 5, o.costPerTurnUsd());
                setDouble(ps, 6, o.costPerAgentUsd());
                setDouble(ps, 7, o.costPerTeamUsd());
                setLong(ps, 8, o.tokensPerTeamPerDay());
                setDouble(ps, 9, o.costPerTeamPerDayUsd());
                ps.executeUpdate();
            }
            return null;
        });
    }

    private static void setLong(PreparedStatement ps, int i, Long v) throws SQLException {
        if (v == null) {
            ps.setNull(i, Types.BIGINT);
        } else {
            ps.setLong(i, v);
        }
    }

    private static void setDouble(PreparedStatement ps, int i, Double v) throws SQLException {
        if (v == null) {
            ps.setNull(i, Types.DOUBLE);
        } else {
            ps.setDouble(i, v);
        }
    }
}
