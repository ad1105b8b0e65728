package dev.cohort.host.store;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.InboxItem;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Json;
import dev.cohort.platform.sql.Sql;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.function.Function;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
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

    /** The columns a message is stored with, and their placeholders ({@link #bind}). */
    private static final String COLUMNS = "(team, agent, id, sender, type, content, metadata)";
    private static final String VALUES = "?, ?, ?, ?, ?, ?, ?::jsonb";

    /** Stores a message for its recipient ({@code to}); false when its id was stored before. */
    public boolean insertIfNew(AgentMessage m) {
        return Sql.single(ds, "store inbox message " + m.id() + " in " + table, c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " " + COLUMNS + " VALUES (" + VALUES
                    + ") ON CONFLICT DO NOTHING")) {
                bind(ps, 1, m);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** What {@link #insertIfListed} found: the recipient's status in its roster, and whether the message was new. */
    public record Listed(String status, boolean inserted) {
    }

    /**
     * {@link #insertIfNew} for a recipient listed in {@code roster} (a table with {@code team} and {@code name}
     * columns), in one statement that also reads the recipient's {@code statusColumn}: a consumer's recipient check and
     * its insert in one round trip. Empty, and nothing stored, when the roster has no such recipient.
     */
    public Optional<Listed> insertIfListed(AgentMessage m, String roster, String statusColumn) {
        return Sql.single(ds, "store inbox message " + m.id() + " for " + m.team() + "/" + m.to() + " in " + table, c -> {
            try (PreparedStatement ps = c.prepareStatement("WITH t AS (SELECT " + statusColumn + " AS status FROM "
                    + roster + " WHERE team = ? AND name = ?), ins AS (INSERT INTO " + table + " " + COLUMNS
                    + " SELECT " + VALUES + " FROM t ON CONFLICT DO NOTHING RETURNING 1)"
                    + " SELECT status, (SELECT count(*) FROM ins) FROM t")) {
                ps.setString(1, m.team());
                ps.setString(2, m.to());
                bind(ps, 3, m);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(new Listed(rs.getString(1), rs.getLong(2) == 1))
                            : Optional.<Listed>empty();
                }
            }
        });
    }

    private static void bind(PreparedStatement ps, int at, AgentMessage m) throws SQLException {
        ps.setString(at, m.team());
        ps.setString(at + 1, m.to());
        ps.setString(at + 2, m.id());
        ps.setString(at + 3, m.from() == null ? "unknown" : m.from());
        ps.setString(at + 4, m.type().wire());
        ps.setString(at + 5, m.content());
        ps.setString(at + 6, Json.write(m.metadata() == null ? Map.of() : m.metadata()));
    }

    /**
     * A scalar subquery for a statement of the caller's: the pending messages ({@link #pending}) of the agent named by
     * the SQL expressions {@code team} and {@code agent}, as one JSON array ({@code null} when none), its one parameter
     * the limit; {@link #rows} reads it. So a caller reads an agent's row and its inbox in one round trip.
     */
    public String pendingJsonSql(String team, String agent) {
        return "(SELECT json_agg(json_build_array(i.id, i.sender, i.type, i.content, i.metadata) ORDER BY i.seq)"
                + " FROM (SELECT id, sender, type, content, metadata, seq FROM " + table + " WHERE team = " + team
                + " AND agent = " + agent + " AND status = 'received' ORDER BY seq LIMIT ?) i)";
    }

    /** The rows of a {@link #pendingJsonSql} value. */
    public static List<Row> rows(String json) {
        List<Row> out = new ArrayList<>();
        if (json == null) {
            return out;
        }
        for (JsonNode r : Json.read(json, JsonNode.class)) {
            out.add(new Row(r.get(0).asText(), r.get(1).asText(), r.get(2).asText(),
                    r.get(3).isNull() ? null : r.get(3).asText(), metadata(r.get(4).toString())));
        }
        return out;
    }

    /** A stored message's metadata; anything unreadable reads as none. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> metadata(String json) {
        try {
            Map<String, Object> m = Json.MAPPER.readValue(json, Map.class);
            return m == null ? Map.of() : m;
        } catch (Exception e) {
            return Map.of();
        }
    }

    /** The agent's messages not yet injected or routed, oldest first. */
    public List<Row> pending(AgentKey key, int limit) {
        return Sql.single(ds, "read inbox of " + key + " in " + table, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT id, sender, type, content, metadata::text FROM " + table
                    + " WHERE team = ? AND agent = ? AND status = 'received' ORDER BY seq LIMIT ?")) {
                Sql.bind(ps, key.team(), key.name(), limit);
                try (ResultSet rs = ps.executeQuery()) {
                    List<Row> out = new ArrayList<>();
                    while (rs.next()) {
                        out.add(new Row(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                                metadata(rs.getString(5))));
                    }
                    return out;
                }
            }
        });
    }

    /** Every agent that has a message in this inbox, in any state (a directory for a kind fed by its inbox only). */
    public List<AgentKey> agents() {
        return Sql.single(ds, "list the agents of " + table, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT DISTINCT team, agent FROM " + table);
                    ResultSet rs = ps.executeQuery()) {
                List<AgentKey> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(new AgentKey(rs.getString(1), rs.getString(2)));
                }
                return out;
            }
        });
    }

    /** The pending messages as the engine's inbox items ({@link #PREFIX}id), each text made by {@code format}. */
    public List<InboxItem> drain(AgentKey key, int limit, Function<Row, String> format) {
        return pending(key, limit).stream().map(r -> new InboxItem(PREFIX + r.id(), format.apply(r))).toList();
    }

    /** Marks a message handled by the host itself (a protocol reply routed before injection); false if not pending. */
    public boolean markRouted(AgentKey key, String id) {
        return tx("route inbox message " + id, c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET status = 'routed' WHERE team = ? "
                    + "AND agent = ? AND id = ? AND status = 'received'")) {
                Sql.bind(ps, key.team(), key.name(), id);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** Marks the injected inbox ids ({@link #PREFIX}id) inside the agent's save transaction. */
    public InputLedger ledger() {
        return InputLedger.forInputs((c, key, state, ids) -> {
            List<String> mine = ids.stream().filter(i -> i.startsWith(PREFIX)).map(i -> i.substring(PREFIX.length())).toList();
            if (mine.isEmpty()) {
                return;
            }
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET status = 'injected' WHERE team = ? "
                    + "AND agent = ? AND id = ? AND status = 'received'")) {
                for (String id : mine) {
                    Sql.bind(ps, key.team(), key.name(), id);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        });
    }

    private <T> T tx(String what, Sql.Work<T> work) {
        return Sql.inTransaction(ds, what + " in " + table, work);
    }
}
