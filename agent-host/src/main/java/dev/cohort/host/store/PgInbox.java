package dev.cohort.host.store;

import dev.cohort.core.engine.InboxItem;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Json;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Agents' inboxes in {@code <schema>.inbox} (created by {@code db/agent-host/V100__agent_host_tables.sql}), keyed
 * {@code (team, agent, id)}: a message is stored once however often Kafka redelivers it ({@link #insertIfNew}), read
 * oldest first while {@code received} ({@link #pending}), and marked {@code injected} in the transaction of the save
 * whose state contains it ({@link #ledger}: the {@link InputLedger} to give {@link PgAgentStore}) or {@code routed}
 * when the host handled it without the model ({@link #markRouted}).
 */
public final class PgInbox {

    /** A stored message. */
    public record Row(String id, String sender, String type, String content, Map<String, Object> metadata) {
    }

    /** The prefix of this inbox's ids among an agent's input ids. */
    public static final String PREFIX = "inbox:";

    private final DataSource ds;
    private final String table;

    public PgInbox(DataSource ds, String schema) {
        this.ds = Objects.requireNonNull(ds, "ds");
        Sql.schema(schema, "inbox");
        this.table = schema + ".inbox";
    }

    /** Stores a message for its recipient ({@code to}); false when its id was stored before. */
    public boolean insertIfNew(AgentMessage m) {
        return Sql.single(ds, "store inbox message " + m.id() + " in " + table, c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (team, agent, id, sender, type, "
                    + "content, metadata) VALUES (?, ?, ?, ?, ?, ?, ?::jsonb) ON CONFLICT DO NOTHING")) {
                ps.setString(1, m.team());
                ps.setString(2, m.to());
                ps.setString(3, m.id());
                ps.setString(4, m.from() == null ? "unknown" : m.from());
                ps.setString(5, m.type().wire());
                ps.setString(6, m.content());
                ps.setString(7, Json.write(m.metadata() == null ? Map.of() : m.metadata()));
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** The agent's messages not yet injected or routed, oldest first. */
    @SuppressWarnings("unchecked")
    public List<Row> pending(AgentKey key, int limit) {
        return Sql.single(ds, "read inbox of " + key + " in " + table, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT id, sender, type, content, metadata::text FROM " + table
                    + " WHERE team = ? AND agent = ? AND status = 'received' ORDER BY seq LIMIT ?")) {
                ps.setString(1, key.team());
                ps.setString(2, key.name());
                ps.setInt(3, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    List<Row> out = new ArrayList<>();
                    while (rs.next()) {
                        Map<String, Object> meta;
                        try {
                            meta = Json.MAPPER.readValue(rs.getString(5), Map.class);
                        } catch (Exception e) {
                            meta = Map.of();
                        }
                        out.add(new Row(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), meta));
                    }
                    return out;
                }
            }
        });
    }

    /** The pending messages as the engine's inbox items ({@link #PREFIX}id), each text made by {@code format}. */
    public List<InboxItem> drain(AgentKey key, int limit, java.util.function.Function<Row, String> format) {
        return pending(key, limit).stream().map(r -> new InboxItem(PREFIX + r.id(), format.apply(r))).toList();
    }

    /** Marks a message handled by the host itself (a protocol reply routed before injection); false if not pending. */
    public boolean markRouted(AgentKey key, String id) {
        return tx("route inbox message " + id, c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET status = 'routed' WHERE team = ? "
                    + "AND agent = ? AND id = ? AND status = 'received'")) {
                ps.setString(1, key.team());
                ps.setString(2, key.name());
                ps.setString(3, id);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** Marks the injected inbox ids ({@link #PREFIX}id) inside the agent's save transaction. */
    public InputLedger ledger() {
        return (c, key, state, ids) -> {
            List<String> mine = ids.stream().filter(i -> i.startsWith(PREFIX)).map(i -> i.substring(PREFIX.length())).toList();
            if (mine.isEmpty()) {
                return;
            }
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET status = 'injected' WHERE team = ? "
                    + "AND agent = ? AND id = ? AND status = 'received'")) {
                for (String id : mine) {
                    ps.setString(1, key.team());
                    ps.setString(2, key.name());
                    ps.setString(3, id);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        };
    }

    private <T> T tx(String what, Sql.Work<T> work) {
        return Sql.inTransaction(ds, what + " in " + table, work);
    }
}
