package dev.cohort.host.store;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.cohort.core.engine.AgentState;
import dev.cohort.core.engine.Message;
import dev.cohort.core.engine.StepSave;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.host.AgentRecord;
import dev.cohort.core.host.AgentStore;
import dev.cohort.core.host.OwnershipLostException;
import dev.cohort.core.host.Park;
import dev.cohort.core.host.Phase;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.Json;
import dev.cohort.platform.sql.Sql;
import java.lang.ref.WeakReference;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The {@link AgentStore} over {@code <schema>.agents} and {@code <schema>.agent_messages} in PostgreSQL: one row per
 * agent with its engine state without the conversation (JSONB, plus {@code messageCount}), {@code version} (the
 * fence), {@code status} (the {@link Phase}), {@code turn_id}, {@code waiting_for}, {@code deadline}, {@code owner}
 * and {@code updated_at}; one row per message of the conversation, {@code (team, name, idx)}.
 *
 * <p>Each call is one transaction: {@code adopt} is an upsert that bumps the version and records the owner, then reads
 * the conversation in order; {@code park} is one fenced {@code UPDATE … WHERE version = :mine RETURNING version}; a
 * save is that fenced {@code UPDATE} of the state row <em>first</em> (so a lost fence throws
 * {@link OwnershipLostException} before anything else is written, and the transaction is rolled back), then the
 * messages, then the service's {@link InputLedger} (which also stores the step's events there when the ledger keeps
 * them: {@link EventLedger}).
 *
 * <p><b>Delta saves</b>. The store remembers, per agent, what it last wrote or adopted: the version
 * that write produced and the messages it held (by identity, through weak references, so the memo keeps no
 * conversation alive; at most {@link #MEMO_KEYS} agents). A save whose {@code expectedVersion} is that version and
 * whose messages begin with exactly those messages inserts only the new ones (one statement); anything else — the
 * list was replaced or rewritten (compaction, repair), the memo has no entry, or another version — deletes the
 * agent's messages and inserts them all, in the same transaction. Trusting the memo only at its own version is what
 * makes it sound: the version is bumped by every write, so the row still holds that version only if nobody wrote it
 * since, and then the message rows are the ones the memo describes.
 */
public final class PgAgentStore implements AgentStore {

    /**
     * Agents whose last save the store remembers (least recently saved dropped first): a replica hosting many
     * teammates must not grow the memo without limit; a forgotten agent's next save rewrites its messages once.
     */
    static final int MEMO_KEYS = 10_000;

    /** The key of the state JSON that says how many messages {@code agent_messages} holds for the agent. */
    static final String MESSAGE_COUNT = "messageCount";

    private final DataSource ds;
    private final String table;
    private final String messagesTable;
    private final InputLedger ledger;
    private final String adoptSql;
    private final String messagesSql;
    private final String saveSql;
    private final String saveAppendSql;
    private final String saveUpdateCte;
    private final String saveInsertCte;
    private final String parkSql;
    private final String deleteMessagesSql;
    private final String insertMessagesSql;
    private final Map<AgentKey, Saved> memo;

    public PgAgentStore(DataSource ds, String schema, InputLedger ledger) {
        this(ds, schema, ledger, MEMO_KEYS);
    }

    /** A store whose memo of last saves holds at most {@code memoKeys} agents (tests). */
    PgAgentStore(DataSource ds, String schema, InputLedger ledger, int memoKeys) {
        this.memo = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<AgentKey, Saved> eldest) {
                return size() > memoKeys;
            }
        };
        this.ds = Objects.requireNonNull(ds, "ds");
        Sql.schema(schema, "agent store");
        this.table = schema + ".agents";
        this.messagesTable = schema + ".agent_messages";
        this.ledger = ledger == null ? InputLedger.NONE : ledger;
        this.adoptSql = "INSERT INTO " + table + " AS a (team, name, state, owner) VALUES (?, ?, ?::jsonb, ?) "
                + "ON CONFLICT (team, name) DO UPDATE SET version = a.version + 1, owner = EXCLUDED.owner "
                + "RETURNING state::text, version, status, waiting_for, deadline";
        this.messagesSql = "SELECT idx, message::text FROM " + messagesTable + " WHERE team = ? AND name = ? ORDER BY idx";
        this.saveSql = "UPDATE " + table + " SET state = ?::jsonb, status = ?, turn_id = ?, waiting_for = ?, deadline = NULL, "
                + "version = version + 1, updated_at = now() WHERE team = ? AND name = ? AND version = ? RETURNING version";
        this.parkSql = "UPDATE " + table + " SET status = ?, waiting_for = ?, deadline = ?, version = version + 1, "
                + "updated_at = now() WHERE team = ? AND name = ? AND version = ? RETURNING version";
        this.deleteMessagesSql = "DELETE FROM " + messagesTable + " WHERE team = ? AND name = ?";
        this.insertMessagesSql = "INSERT INTO " + messagesTable + " (team, name, idx, message) "
                + "SELECT ?, ?, (? + t.ord - 1)::int, t.m::jsonb FROM unnest(?::text[]) WITH ORDINALITY AS t(m, ord)";
        // the usual step save (the row fenced, its new messages appended) in one statement, one round trip: the
        // messages are inserted only if the fenced UPDATE matched (they join its RETURNING)
        this.saveUpdateCte = "WITH u AS (UPDATE " + table + " SET state = ?::jsonb, status = ?, turn_id = ?, "
                + "waiting_for = ?, deadline = NULL, version = version + 1, updated_at = now() "
                + "WHERE team = ? AND name = ? AND version = ? RETURNING version, team, name)";
        this.saveInsertCte = ", ins AS (INSERT INTO " + messagesTable + " (team, name, idx, message) "
                + "SELECT u.team, u.name, (? + t.ord - 1)::int, t.m::jsonb FROM u, unnest(?::text[]) WITH ORDINALITY "
                + "AS t(m, ord))";
        this.saveAppendSql = saveUpdateCte + saveInsertCte + " SELECT version FROM u";
    }

    /**
     * The one query for an agent's whole conversation, for every reader outside the store (APIs, tools, tests): one
     * row for an existing agent (parameters: team, name) whose only column is the conversation as a JSON array text,
     * in order, {@code []} when empty; no row for an unknown agent. A row an older build wrote (its messages still in
     * the state) is read from the state.
     */
    public static String conversationSql(String schema) {
        Sql.schema(schema, "agent conversation");
        return "SELECT CASE WHEN a.state->'" + MESSAGE_COUNT + "' IS NOT NULL THEN COALESCE((SELECT jsonb_agg(m.message ORDER BY m.idx) "
                + "FROM " + schema + ".agent_messages m WHERE m.team = a.team AND m.name = a.name), '[]'::jsonb) "
                + "ELSE COALESCE(a.state->'messages', '[]'::jsonb) END::text FROM " + schema + ".agents a "
                + "WHERE a.team = ? AND a.name = ?";
    }

    @Override
    public AgentRecord adopt(AgentKey key, String instance) {
        if (instance == null || instance.isBlank()) {
            throw new IllegalArgumentException("adopting agent " + key + " needs the adopting instance's id");
        }
        try {
            Adopted adopted = tx("adopt agent " + key, c -> {
                String stateJson;
                long version;
                Park park;
                try (PreparedStatement ps = c.prepareStatement(adoptSql)) {
                    Sql.bind(ps, key.team(), key.name(), rowJson(AgentState.empty()), instance);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        Phase phase = phase(rs.getString(3));
                        Timestamp deadline = rs.getTimestamp(5);
                        park = phase == Phase.WORKING ? null
                                : new Park(phase, rs.getString(4), deadline == null ? null : deadline.toInstant());
                        stateJson = rs.getString(1);
                        version = rs.getLong(2);
                    }
                }
                return state(c, key, stateJson, version, park);
            });
            remember(key, adopted.record().version(), adopted.record().state().messages(), adopted.legacy());
            return adopted.record();
        } catch (RuntimeException e) {
            forget(key);
            throw e;
        }
    }

    /**
     * An adopted agent; {@code legacy} when its row still held the messages in the state (written by a build before
     * delta saves, or by hand): the table is not known to match, so the next save rewrites them all.
     */
    private record Adopted(AgentRecord record, boolean legacy) {
    }

    /** The state row as adopted plus its messages, read in the adopt's transaction (the row is locked by the upsert). */
    private Adopted state(Connection c, AgentKey key, String stateJson, long version, Park park) throws SQLException {
        ObjectNode node;
        try {
            node = (ObjectNode) Json.MAPPER.readTree(stateJson);
        } catch (JsonProcessingException | ClassCastException e) {
            throw new IllegalStateException("agent " + key + " in " + table + " has a state that is not a JSON object", e);
        }
        JsonNode count = node.remove(MESSAGE_COUNT);
        if (count == null) {
            // written by a build before delta saves (or by hand): the conversation is still in the state itself
            return new Adopted(new AgentRecord(key, AgentState.fromJson(node.toString()), park, version), true);
        }
        node.remove("messages");
        List<Message> messages = new ArrayList<>(count.asInt());
        try (PreparedStatement ps = c.prepareStatement(messagesSql)) {
            ps.setString(1, key.team());
            ps.setString(2, key.name());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (rs.getInt(1) != messages.size()) {
                        throw new IllegalStateException("agent " + key + ": " + messagesTable + " has no message "
                                + messages.size() + " (next stored index " + rs.getInt(1) + ")");
                    }
                    messages.add(Json.read(rs.getString(2), Message.class));
                }
            }
        }
        if (messages.size() != count.asInt()) {
            // never resume an agent with part of its conversation: that would read as a silently shorter history
            throw new IllegalStateException("agent " + key + ": its state says " + count.asInt() + " messages but "
                    + messagesTable + " holds " + messages.size());
        }
        return new Adopted(new AgentRecord(key, AgentState.fromJson(node.toString()).withMessages(messages), park, version),
                false);
    }

    @Override
    public boolean storesEvents() {
        return ledger instanceof EventLedger log && log.storesEvents();
    }

    @Override
    public long save(AgentKey key, StepSave step, long expectedVersion) {
        AgentState state = step.state();
        List<String> injectedIds = step.injectedIds();
        List<Event> events = step.events();
        if (!events.isEmpty() && !storesEvents()) {
            throw new IllegalArgumentException("a step with events given to " + table + ", whose ledger keeps no event"
                    + " log (storesEvents() is false)");
        }
        EventLedger log = events.isEmpty() ? null : (EventLedger) ledger;
        List<Message> messages = state.messages();
        int from = savedPrefix(key, messages, expectedVersion);
        boolean rewrite = from < 0;
        int first = rewrite ? 0 : from;
        String json = rowJson(state);
        String[] added = new String[messages.size() - first];
        for (int i = first; i < messages.size(); i++) {
            added[i - first] = Json.write(messages.get(i));
        }
        AtomicReference<List<Event>> stored = new AtomicReference<>(List.of());
        if (!events.isEmpty()) {
            log.beforeSave(key);
        }
        // the usual save whose ledger writes nothing else: one statement (with the step's events in it), auto-commit
        EventsClause clause = null;
        boolean one = !rewrite && ledger.writesNothing(key, state, injectedIds)
                && (events.isEmpty() || (clause = log.eventsClause(key, events)) != null);
        long version;
        try {
            if (one) {
                EventsClause ec = clause;
                version = Sql.single(ds, "save agent " + key + " in " + table, c -> {
                    String sql = oneStatementSql(added.length > 0, ec);
                    try (PreparedStatement ps = c.prepareStatement(sql)) {
                        int i = bindSave(ps, key, state, json, expectedVersion);
                        if (added.length > 0) {
                            ps.setInt(i++, first);
                            ps.setArray(i++, c.createArrayOf("text", added));
                        }
                        if (ec != null) {
                            ec.bind(ps, i);
                        }
                        try (ResultSet rs = executeGuarded(ps, key, ec)) {
                            if (!rs.next()) {
                                throw new OwnershipLostException("agent " + key + " was saved by someone else (expected "
                                        + "version " + expectedVersion + ")");
                            }
                            if (ec != null) {
                                stored.set(ec.read(rs, 2));
                            }
                            return rs.getLong(1);
                        }
                    }
                });
            } else {
                version = tx("save agent " + key, c -> {
                    long v;
                    if (!rewrite && added.length > 0) {
                        try (PreparedStatement ps = c.prepareStatement(saveAppendSql)) {
                            int i = bindSave(ps, key, state, json, expectedVersion);
                            ps.setInt(i++, first);
                            ps.setArray(i, c.createArrayOf("text", added));
                            v = fenced(ps, key, expectedVersion);
                        }
                        ledger.saved(c, key, state, injectedIds);
                        if (!events.isEmpty()) {
                            stored.set(log.storeEvents(c, key, events));
                        }
                        return v;
                    }
                    try (PreparedStatement ps = c.prepareStatement(saveSql)) {
                        bindSave(ps, key, state, json, expectedVersion);
                        v = fenced(ps, key, expectedVersion);
                    }
                    if (rewrite) {
                        try (PreparedStatement ps = c.prepareStatement(deleteMessagesSql)) {
                            ps.setString(1, key.team());
                            ps.setString(2, key.name());
                            ps.executeUpdate();
                        }
                    }
                    if (added.length > 0) {
                        try (PreparedStatement ps = c.prepareStatement(insertMessagesSql)) {
                            Sql.bind(ps, key.team(), key.name(), first);
                            ps.setArray(4, c.createArrayOf("text", added));
                            ps.executeUpdate();
                        }
                    }
                    ledger.saved(c, key, state, injectedIds);
                    if (!events.isEmpty()) {
                        stored.set(log.storeEvents(c, key, events));
                    }
                    return v;
                });
            }
        } catch (RuntimeException e) {
            forget(key);
            throw e;
        }
        remember(key, version, messages, false);
        if (!events.isEmpty()) {
            log.eventsCommitted(key, stored.get());
        }
        return version;
    }

    @Override
    public long park(AgentKey key, Park park, long expectedVersion) {
        long version;
        try {
            version = tx("park agent " + key, c -> {
                try (PreparedStatement ps = c.prepareStatement(parkSql)) {
                    ps.setString(1, park.phase().wire());
                    ps.setString(2, park.waitingFor());
                    ps.setTimestamp(3, park.deadline() == null ? null : Timestamp.from(park.deadline()));
                    ps.setString(4, key.team());
                    ps.setString(5, key.name());
                    ps.setLong(6, expectedVersion);
                    return fenced(ps, key, expectedVersion);
                }
            });
        } catch (RuntimeException e) {
            forget(key);
            throw e;
        }
        // a park leaves the messages as they were: what the memo knew at the expected version holds at the new one
        synchronized (memo) {
            Saved s = memo.get(key);
            if (s != null && s.version == expectedVersion) {
                memo.put(key, new Saved(version, s.messages));
            }
        }
        return version;
    }

    /** How many messages of the agent the store last wrote as {@code messages}' first ones, -1 when unknown. */
    int savedPrefix(AgentKey key, List<Message> messages, long expectedVersion) {
        Saved s;
        synchronized (memo) {
            s = memo.get(key);
        }
        if (s == null || s.version != expectedVersion || s.messages.length > messages.size()) {
            return -1;
        }
        for (int i = 0; i < s.messages.length; i++) {
            Message saved = s.messages[i].get();
            Message now = messages.get(i);
            if (saved != now && (saved == null || !saved.equals(now))) {
                return -1;
            }
        }
        return s.messages.length;
    }

    private void remember(AgentKey key, long version, List<Message> messages, boolean unknown) {
        synchronized (memo) {
            if (unknown) {
                memo.remove(key);
                return;
            }
            Saved before = memo.get(key);
            @SuppressWarnings("unchecked")
            WeakReference<Message>[] refs = new WeakReference[messages.size()];
            int i = 0;
            if (before != null) {
                // reuse the references of the unchanged prefix (the common case: one or two messages appended)
                for (; i < Math.min(before.messages.length, refs.length) && before.messages[i].get() == messages.get(i); i++) {
                    refs[i] = before.messages[i];
                }
            }
            for (; i < refs.length; i++) {
                refs[i] = new WeakReference<>(messages.get(i));
            }
            memo.put(key, new Saved(version, refs));
        }
    }

    private void forget(AgentKey key) {
        synchronized (memo) {
            memo.remove(key);
        }
    }

    /** Agents the memo holds (tests). */
    int memoSize() {
        synchronized (memo) {
            return memo.size();
        }
    }

    /**
     * What the store last wrote or adopted for an agent: the version that write produced and its messages, weakly (a
     * message the agent's session no longer holds reads as changed, which only costs a full rewrite).
     */
    private record Saved(long version, WeakReference<Message>[] messages) {
    }

    /** The state row's JSON: the state without its messages (every other field, present or added later), and their count. */
    static String rowJson(AgentState state) {
        String rest;
        try {
            rest = WITHOUT_MESSAGES.writeValueAsString(state);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise the state of an agent: " + e.getOriginalMessage(), e);
        }
        // an AgentState is a JSON object with at least its version: the count goes in front of its first field
        return "{\"" + MESSAGE_COUNT + "\":" + state.messages().size() + "," + rest.substring(1);
    }

    /** The protocol's mapping, less the state's messages (written to their own table), in one pass. */
    private static final ObjectWriter WITHOUT_MESSAGES = Json.MAPPER.copy()
            .addMixIn(AgentState.class, WithoutMessages.class).writerFor(AgentState.class);

    @JsonIgnoreProperties("messages")
    private abstract static class WithoutMessages {
    }

    /** SQLSTATE of a division by zero: an {@link EventsClause}'s guard (an event not stored) failed the statement. */
    private static final String GUARD_FAILED = "22012";

    private static ResultSet executeGuarded(PreparedStatement ps, AgentKey key, EventsClause clause) throws SQLException {
        try {
            return ps.executeQuery();
        } catch (SQLException e) {
            if (clause != null && GUARD_FAILED.equals(e.getSQLState())) {
                throw new IllegalStateException("the save of agent " + key + " was refused whole: an event of its step "
                        + "is already stored (nothing of the save was written)", e);
            }
            throw e;
        }
    }

    /**
     * The save as one statement: the fenced {@code UPDATE} ({@code u}), the new messages ({@code ins}, when there are
     * any) and the events' clause, each write reading {@code u}; one row (the new version, then the clause's columns)
     * when the fence held, none when it refused (nothing written).
     */
    private String oneStatementSql(boolean appends, EventsClause clause) {
        if (clause == null) {
            return appends ? saveAppendSql : saveSql;
        }
        return saveUpdateCte + (appends ? saveInsertCte : "") + clause.ctes() + " SELECT u.version" + clause.columns()
                + " FROM u";
    }

    /** The fenced update's parameters (1–7, as {@link #saveSql} and {@link #saveAppendSql} take them); returns 8. */
    private static int bindSave(PreparedStatement ps, AgentKey key, AgentState state, String json, long expectedVersion)
            throws SQLException {
        Sql.bind(ps, json, AgentStore.phaseOf(state).wire(), state.turn() == null ? null : state.turn().turnId(),
                state.turn() == null || state.turn().waiting() == null ? null : state.turn().waiting().id(), key.team(),
                key.name(), (long) expectedVersion);
        return 8;
    }

    private long fenced(PreparedStatement ps, AgentKey key, long expectedVersion) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new OwnershipLostException("agent " + key + " was saved by someone else (expected version "
                        + expectedVersion + ")");
            }
            return rs.getLong(1);
        }
    }

    /** Rows written by an older build say {@code idle}/{@code working}; anything unknown reads as working (resumed). */
    private static Phase phase(String status) {
        try {
            return status == null ? Phase.IDLE : Phase.of(status);
        } catch (IllegalArgumentException e) {
            return Phase.WORKING;
        }
    }

    private <T> T tx(String what, Sql.Work<T> work) {
        return Sql.inTransaction(ds, what + " in " + table, work);
    }

    @Override
    public boolean unavailable(Throwable failure) {
        return StoreRetry.unavailable(failure);
    }
}
