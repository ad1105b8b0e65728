package dev.cohort.lead.teams;

import dev.cohort.core.engine.Usage;
import dev.cohort.host.store.PgAgentStore;
import dev.cohort.platform.sql.Sql;
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
 * Reads of {@code lead.agents} (the API's agent views, the team's usage) and of the conversations in
 * {@code lead.agent_messages}. The rows are written only by the shared host's fenced store
 * ({@code dev.cohort.host.store.PgAgentStore}), which adopts, saves and parks them; {@link AgentRow#stateJson} is the
 * state without its messages (read them with {@link #conversation}).
 */
@ApplicationScoped
public class AgentRepository {

    /** A stored agent. */
    public record AgentRow(String team, String name, String stateJson, long version, String status, String turnId,
            Instant updatedAt, String owner) {
    }

    /** The store's one query for an agent's whole conversation (see {@code PgAgentStore.conversationSql}). */
    private static final String CONVERSATION = PgAgentStore.conversationSql("lead");

    /** The columns {@link #row} reads, in its order. */
    private static final String COLUMNS = "team, name, state::text, version, status, turn_id, updated_at, owner";

    @Inject
    AgroalDataSource ds;

    public Optional<AgentRow> find(String team, String name) {
        return Sql.inTransaction(ds, "read agent " + team + "/" + name, c -> find(c, team, name));
    }

    /** The agent's whole conversation as a JSON array text, in order; empty for an unknown agent. */
    public Optional<String> conversation(String team, String name) {
        return Sql.inTransaction(ds, "read the conversation of " + team + "/" + name, c -> {
            try (PreparedStatement ps = c.prepareStatement(CONVERSATION)) {
                ps.setString(1, team);
                ps.setString(2, name);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
                }
            }
        });
    }

    public List<AgentRow> list(String team) {
        return Sql.inTransaction(ds, "list agents of " + team, c -> {
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
     * one's saved state carries, so it is as fresh as the last step each agent saved, and the usage each teammate last
     * reported ({@code lead.roster}); {@link Usage#ZERO} for a team without agents. The per-team budget ({@code cohort.engine.budgets.*-per-team}) is checked against it.
     */
    public Usage teamUsage(String team) {
        return Sql.inTransaction(ds, "usage of team " + team, c -> {
            // the lead's own saved usage and what each teammate last reported (lead.roster, from teammate_phase)
            try (PreparedStatement ps = c.prepareStatement("SELECT COALESCE(SUM((u->>'inputTokens')::bigint), 0), "
                    + "COALESCE(SUM((u->>'outputTokens')::bigint), 0), COALESCE(SUM((u->>'calls')::bigint), 0), "
                    + "COALESCE(SUM((u->>'costUsd')::float8), 0) FROM (SELECT state->'usage' AS u FROM lead.agents WHERE team = ? "
                    + "UNION ALL SELECT usage FROM lead.roster WHERE team = ?) used")) {
                ps.setString(1, team);
                ps.setString(2, team);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return new Usage(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getDouble(4));
                }
            }
        });
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
