package dev.cohort.lead.a2a;

import dev.cohort.platform.sql.Sql;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A2A tasks ({@code lead.a2a_tasks}, V101.4): what a task holds that its prompt does not — the context the sender
 * named, the message as sent, when a cancel was asked for. Every write of the table goes through this class.
 */
@ApplicationScoped
public class A2aTaskRepository {

    /** One task as stored. */
    public record A2aTaskRow(String team, String id, String contextId, String messageId, String messageJson,
            Instant createdAt, Instant canceledAt) {
    }

    private static final String COLUMNS = "team, id, context_id, message_id, message::text, created_at, canceled_at";

    @Inject
    AgroalDataSource ds;

    /** Records a task; false when it exists (the same message sent again), which is then left as it was. */
    public boolean insertIfAbsent(String team, String id, String contextId, String messageId, String messageJson) {
        return Sql.inTransaction(ds, "record A2A task " + id, c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO lead.a2a_tasks (team, id, context_id, message_id, "
                    + "message) VALUES (?, ?, ?, ?, ?::jsonb) ON CONFLICT DO NOTHING")) {
                Sql.bind(ps, team, id, contextId, messageId, messageJson);
                return ps.executeUpdate() == 1;
            }
        });
    }

    public Optional<A2aTaskRow> find(String team, String id) {
        return Sql.inTransaction(ds, "read A2A task " + id, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM lead.a2a_tasks WHERE team = ? AND id = ?")) {
                Sql.bind(ps, team, id);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(row(rs)) : Optional.empty();
                }
            }
        });
    }

    /** The team's tasks, newest first, of one context when {@code contextId} is set. */
    public List<A2aTaskRow> list(String team, String contextId, int limit, int offset) {
        return Sql.inTransaction(ds, "list A2A tasks of " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM lead.a2a_tasks WHERE team = ? AND "
                    + "(?::text IS NULL OR context_id = ?) ORDER BY created_at DESC, id LIMIT ? OFFSET ?")) {
                Sql.bind(ps, team, contextId, contextId, limit, offset);
                try (ResultSet rs = ps.executeQuery()) {
                    List<A2aTaskRow> out = new ArrayList<>();
                    while (rs.next()) {
                        out.add(row(rs));
                    }
                    return out;
                }
            }
        });
    }

    /** Marks the task as canceled (once: a second cancel keeps the first time). */
    public void markCanceled(String team, String id) {
        Sql.inTransaction(ds, "cancel A2A task " + id, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE lead.a2a_tasks SET canceled_at = now() WHERE team = ? AND id = ? AND canceled_at IS NULL")) {
                Sql.bind(ps, team, id);
                return ps.executeUpdate();
            }
        });
    }

    /**
     * Ends a prompt that no turn took yet: {@code cancelled}, so the lead never starts it. A prompt still on its way
     * through {@code cohort.prompts} is recorded here as cancelled, and its record is then skipped as a redelivery.
     * True when the prompt is cancelled now (it had not started); false when a turn already took it.
     */
    public boolean cancelUnstartedPrompt(String team, String id, String text) {
        return Sql.inTransaction(ds, "cancel prompt " + id, c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO lead.prompts (team, id, text, source, status) "
                    + "VALUES (?, ?, ?, 'a2a', 'cancelled') ON CONFLICT DO NOTHING")) {
                Sql.bind(ps, team, id, text);
                if (ps.executeUpdate() == 1) {
                    return true;
                }
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE lead.prompts SET status = 'cancelled' WHERE team = ? AND id = ? AND status = 'received'")) {
                Sql.bind(ps, team, id);
                return ps.executeUpdate() == 1;
            }
        });
    }

    private static A2aTaskRow row(ResultSet rs) throws SQLException {
        Timestamp canceled = rs.getTimestamp(7);
        return new A2aTaskRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                rs.getTimestamp(6).toInstant(), canceled == null ? null : canceled.toInstant());
    }
}
