package dev.cohort.lead.inbox;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Json;
import dev.cohort.platform.sql.Sql;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Messages to a team's lead from {@code cohort.lead.inbox}, in {@code lead.inbox} (agent-host's inbox table, every row
 * the agent {@code lead}'s), deduped on message id.
 */
@ApplicationScoped
public class InboxRepository {

    /** A stored message. */
    public record InboxRow(String id, String sender, String type, String content, Map<String, Object> metadata) {
    }

    @Inject
    AgroalDataSource ds;

    /** Stores a message; false when its id was seen before. */
    public boolean insertIfNew(AgentMessage m) {
        return Sql.inTransaction(ds, "store inbox message " + m.id(), c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO lead.inbox (team, agent, id, sender, type, content, "
                    + "metadata) VALUES (?, 'lead', ?, ?, ?, ?, ?::jsonb) ON CONFLICT DO NOTHING")) {
                Sql.bind(ps, m.team(), m.id(), m.from() == null ? "unknown" : m.from(), m.type().wire(), m.content(),
                        Json.write(m.metadata()));
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** A stored message as {@code check_inbox} shows it: whether it is in the lead's conversation yet, and when it came. */
    public record InboxEntry(String id, String sender, String type, String content, boolean injected,
            Instant receivedAt) {
    }

    /**
     * The team's newest {@code limit} messages to the lead, oldest first, injected or not (reading consumes nothing).
     * {@code control} messages are never stored, so never shown.
     */
    public List<InboxEntry> recent(String team, int limit) {
        return Sql.inTransaction(ds, "read recent inbox of " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT id, sender, type, content, status, received_at FROM ("
                    + "SELECT id, sender, type, content, status, received_at, seq FROM lead.inbox WHERE team = ? "
                    + "AND agent = 'lead' ORDER BY seq DESC LIMIT ?) newest ORDER BY seq")) {
                ps.setString(1, team);
                ps.setInt(2, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    List<InboxEntry> out = new ArrayList<>();
                    while (rs.next()) {
                        out.add(new InboxEntry(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                                !"received".equals(rs.getString(5)), rs.getTimestamp(6).toInstant()));
                    }
                    return out;
                }
            }
        });
    }

    /** Messages not yet given to the lead, oldest first. */
    @SuppressWarnings("unchecked")
    public List<InboxRow> pending(String team, int limit) {
        return Sql.inTransaction(ds, "read inbox of " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT id, sender, type, content, metadata::text FROM lead.inbox "
                    + "WHERE team = ? AND agent = 'lead' AND status = 'received' ORDER BY seq LIMIT ?")) {
                ps.setString(1, team);
                ps.setInt(2, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    List<InboxRow> out = new ArrayList<>();
                    while (rs.next()) {
                        Map<String, Object> meta;
                        try {
                            meta = Json.MAPPER.readValue(rs.getString(5), Map.class);
                        } catch (Exception e) {
                            meta = Map.of();
                        }
                        out.add(new InboxRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), meta));
                    }
                    return out;
                }
            }
        });
    }
}
