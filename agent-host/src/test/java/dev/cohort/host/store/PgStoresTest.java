package dev.cohort.host.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.AgentState;
import dev.cohort.core.engine.Message;
import dev.cohort.core.engine.ModelToolCall;
import dev.cohort.core.engine.StepSave;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.host.AgentRecord;
import dev.cohort.core.host.OwnershipLostException;
import dev.cohort.core.host.Park;
import dev.cohort.core.host.Phase;
import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.devstack.pg.LocalPostgres;
import java.io.InputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The shared stores against a real PostgreSQL (devstack's), in a schema created from the module's own migrations
 * ({@code db/agent-host/V100__agent_host_tables.sql}, {@code V101__agent_messages.sql}, the Flyway placeholder filled
 * in as Flyway would): the inbox dedupes and reads per agent, a save marks exactly the inputs its state contains in
 * the same transaction, a save refused by the fence marks and writes nothing, and a save writes only the messages
 * that are new since the store's own last write of that version (delta saves).
 */
class PgStoresTest {
    private static final String SCHEMA = "tm";
    private static LocalPostgres pg;
    private static PGSimpleDataSource ds;

    @BeforeAll
    static void start() throws IOException, SQLException {
        pg = LocalPostgres.start(0);
        ds = new PGSimpleDataSource();
        ds.setURL(pg.jdbcUrl());
        ds.setUser(pg.username());
        ds.setPassword(pg.password());
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS " + SCHEMA);
            s.execute(migration("V100__agent_host_tables.sql", SCHEMA));
            s.execute(migration("V101__agent_messages.sql", SCHEMA));
        }
    }

    /** One of the module's migrations with Flyway's schema placeholder filled in as Flyway would. */
    private static String migration(String file, String schema) throws IOException {
        try (InputStream in = PgStoresTest.class.getResourceAsStream("/db/agent-host/" + file)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${flyway:defaultSchema}", schema);
        }
    }

    @AfterAll
    static void stop() {
        if (pg != null) {
            pg.close();
        }
    }

    private static AgentKey agent() {
        return new AgentKey("t-" + UUID.randomUUID().toString().substring(0, 8), "alice");
    }

    private static AgentMessage message(AgentKey to, String id, String content) {
        return new AgentMessage(id, to.team(), "lead", to.name(), MessageType.MESSAGE, content, Map.of("k", "v"),
                Instant.now());
    }

    private static AgentState working(String turnId) {
        return new AgentState(AgentState.VERSION, List.of(), List.of(), 0, List.of(), null,
                new AgentState.TurnProgress(turnId, "inbox", false, 0, 0, null, null));
    }

    @Test
    void theInboxStoresEachMessageOnceAndReadsAnAgentsOwnOldestFirst() {
        PgInbox inbox = new PgInbox(ds, SCHEMA);
        AgentKey alice = agent();
        AgentKey bob = new AgentKey(alice.team(), "bob");
        assertThat(inbox.insertIfNew(message(alice, "m1", "first"))).isTrue();
        assertThat(inbox.insertIfNew(message(alice, "m1", "first again"))).as("a redelivery").isFalse();
        assertThat(inbox.insertIfNew(message(alice, "m2", "second"))).isTrue();
        assertThat(inbox.insertIfNew(message(bob, "m3", "for bob"))).isTrue();

        assertThat(inbox.pending(alice, 10)).extracting(PgInbox.Row::id).containsExactly("m1", "m2");
        assertThat(inbox.pending(alice, 10).get(0).content()).isEqualTo("first");
        assertThat(inbox.pending(alice, 10).get(0).metadata()).containsEntry("k", "v");
        assertThat(inbox.drain(alice, 1, r -> r.sender() + ": " + r.content()))
                .extracting(i -> i.id() + " " + i.text()).containsExactly("inbox:m1 lead: first");
        assertThat(inbox.markRouted(alice, "m2")).isTrue();
        assertThat(inbox.markRouted(alice, "m2")).isFalse();
        assertThat(inbox.pending(alice, 10)).extracting(PgInbox.Row::id).containsExactly("m1");
        assertThat(inbox.pending(bob, 10)).extracting(PgInbox.Row::id).containsExactly("m3");
    }

    @Test
    void aMessageForAListedRecipientIsStoredOnceWithItsStatusInOneStatementAndForAnUnlistedOneNotAtAll()
            throws SQLException {
        PgInbox inbox = new PgInbox(ds, SCHEMA);
        AgentKey alice = agent();
        AgentKey ghost = new AgentKey(alice.team(), "ghost");
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS " + SCHEMA + ".roster (team text, name text, lifecycle text)");
            st.execute("INSERT INTO " + SCHEMA + ".roster VALUES ('" + alice.team() + "', 'alice', 'active')");
        }
        String roster = SCHEMA + ".roster";

        assertThat(inbox.insertIfListed(message(alice, "m1", "first"), roster, "lifecycle"))
                .contains(new PgInbox.Listed("active", true));
        assertThat(inbox.insertIfListed(message(alice, "m1", "first again"), roster, "lifecycle")).as("a redelivery")
                .contains(new PgInbox.Listed("active", false));
        assertThat(inbox.insertIfListed(message(ghost, "m2", "for nobody"), roster, "lifecycle")).isEmpty();
        assertThat(inbox.pending(alice, 10)).extracting(PgInbox.Row::content).containsExactly("first");
        assertThat(inbox.pending(ghost, 10)).isEmpty();
    }

    @Test
    void theInboxAsOneJsonValueOfACallersStatementReadsAsItsPendingRows() throws SQLException {
        PgInbox inbox = new PgInbox(ds, SCHEMA);
        AgentKey alice = agent();
        inbox.insertIfNew(message(alice, "m1", "first"));
        inbox.insertIfNew(message(alice, "m2", "second"));
        inbox.insertIfNew(message(alice, "m3", "third"));
        inbox.markRouted(alice, "m2");
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT " + inbox.pendingJsonSql("x.team", "x.agent") + " FROM (SELECT ?::text AS team, ?::text AS agent) x")) {
            ps.setInt(1, 10);
            ps.setString(2, alice.team());
            ps.setString(3, alice.name());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertThat(PgInbox.rows(rs.getString(1))).isEqualTo(inbox.pending(alice, 10));
            }
            ps.setString(3, "nobody");
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertThat(PgInbox.rows(rs.getString(1))).isEmpty();
            }
        }
    }

    @Test
    void aSaveMarksTheInputsItsStateContainsInItsOwnTransactionAndARefusedSaveMarksNothing() {
        PgInbox inbox = new PgInbox(ds, SCHEMA);
        PgAgentStore store = new PgAgentStore(ds, SCHEMA, inbox.ledger());
        AgentKey alice = agent();
        inbox.insertIfNew(message(alice, "m1", "one"));
        inbox.insertIfNew(message(alice, "m2", "two"));
        AgentRecord mine = store.adopt(alice, "host-a");
        AgentRecord theirs = store.adopt(alice, "host-b");

        // the old owner's save is refused: its input stays pending, for the new owner
        assertThatThrownBy(() -> store.save(alice, working("turn-a"), mine.version(), List.of("inbox:m1")))
                .isInstanceOf(OwnershipLostException.class);
        assertThat(inbox.pending(alice, 10)).extracting(PgInbox.Row::id).containsExactly("m1", "m2");

        long v = store.save(alice, working("turn-b"), theirs.version(), List.of("inbox:m1", "prompt:other"));
        assertThat(inbox.pending(alice, 10)).extracting(PgInbox.Row::id).containsExactly("m2");
        assertThat(store.adopt(alice, "host-c").version()).isGreaterThan(v);
    }

    /** A ledger that stores the step's events in a table of its own, in the save's transaction. */
    private static class StepEventLedger implements EventLedger {
        final List<List<String>> committed = new CopyOnWriteArrayList<>();

        @Override
        public void saved(Connection c, AgentKey key, AgentState state, List<String> injectedIds) {
        }

        @Override
        public List<Event> storeEvents(Connection c, AgentKey key,
                List<Event> events) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + SCHEMA + ".step_events (id, team) VALUES (?, ?)")) {
                for (Event e : events) {
                    ps.setString(1, e.id());
                    ps.setString(2, key.team());
                    ps.executeUpdate();
                }
            }
            return events;
        }

        @Override
        public void eventsCommitted(AgentKey key, List<Event> stored) {
            committed.add(stored.stream().map(Event::id).toList());
        }
    }

    private static List<String> stepEvents(String team) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT id FROM " + SCHEMA + ".step_events WHERE team = ? ORDER BY id")) {
            ps.setString(1, team);
            try (ResultSet rs = ps.executeQuery()) {
                List<String> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
                return out;
            }
        }
    }

    @Test
    void aSavesStepEventsAreStoredInItsTransactionAndAnnouncedAfterItsCommitAndARefusedSaveStoresNone()
            throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + SCHEMA + ".step_events (id TEXT PRIMARY KEY, team TEXT NOT NULL)");
        }
        StepEventLedger ledger = new StepEventLedger();
        PgAgentStore store = new PgAgentStore(ds, SCHEMA, ledger);
        assertThat(store.storesEvents()).isTrue();
        AgentKey alice = agent();
        AgentRecord mine = store.adopt(alice, "host-a");
        AgentRecord theirs = store.adopt(alice, "host-b");
        Event a = Event.of(alice.team(), "alice",
                EventType.ASSISTANT_MESSAGE, Json.MAPPER.createObjectNode());
        Event b = Event.of(alice.team(), "alice",
                EventType.TOOL_CALL_FINISHED, Json.MAPPER.createObjectNode());

        assertThatThrownBy(() -> store.save(alice, new StepSave(working("turn-a"), List.of(), List.of(a, b)), mine.version()))
                .isInstanceOf(OwnershipLostException.class);
        assertThat(stepEvents(alice.team())).as("the refused save's events were rolled back with it").isEmpty();
        assertThat(ledger.committed).as("and never announced").isEmpty();

        store.save(alice, new StepSave(working("turn-b"), List.of(), List.of(a, b)), theirs.version());
        assertThat(stepEvents(alice.team())).containsExactlyInAnyOrder(a.id(), b.id());
        assertThat(ledger.committed).containsExactly(List.of(a.id(), b.id()));

        PgAgentStore plain = new PgAgentStore(ds, SCHEMA, null);
        assertThat(plain.storesEvents()).isFalse();
        AgentRecord next = plain.adopt(alice, "host-c");
        assertThatThrownBy(() -> plain.save(alice, new StepSave(working("turn-c"), List.of(), List.of(a)), next.version()))
                .as("a store whose ledger keeps no events refuses them instead of dropping them")
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** A ledger with nothing else to write, whose step events are stored by the save's own statement. */
    private static final class ClauseLedger extends StepEventLedger {
        final AtomicInteger savedCalls = new AtomicInteger();
        final AtomicInteger inTransaction = new AtomicInteger();

        @Override
        public void saved(Connection c, AgentKey key, AgentState state, List<String> injectedIds) {
            savedCalls.incrementAndGet();
        }

        @Override
        public boolean writesNothing(AgentKey key, AgentState state, List<String> injectedIds) {
            return true;
        }

        /** Only for a save that is not one statement (a whole rewrite): in its transaction, as {@link StepEventLedger}. */
        @Override
        public List<Event> storeEvents(Connection c, AgentKey key,
                List<Event> events) throws SQLException {
            inTransaction.incrementAndGet();
            return super.storeEvents(c, key, events);
        }

        @Override
        public EventsClause eventsClause(AgentKey key, List<Event> events) {
            String[] ids = events.stream().map(Event::id).toArray(String[]::new);
            return new EventsClause() {
                @Override
                public String ctes() {
                    return ", se AS (INSERT INTO " + SCHEMA + ".step_events (id, team) SELECT x, u.team FROM u, "
                            + "unnest(?::text[]) AS x ON CONFLICT (id) DO NOTHING RETURNING id)";
                }

                @Override
                public String columns() {
                    return ", (SELECT count(*) FROM se) / (CASE WHEN (SELECT count(*) FROM se) = ? THEN 1 ELSE 0 END)";
                }

                @Override
                public int bind(PreparedStatement ps, int index) throws SQLException {
                    ps.setArray(index, ps.getConnection().createArrayOf("text", ids));
                    ps.setLong(index + 1, ids.length);
                    return index + 2;
                }

                @Override
                public List<Event> read(ResultSet rs, int column) throws SQLException {
                    assertThat(rs.getLong(column)).isEqualTo(ids.length);
                    return events;
                }
            };
        }
    }

    @Test
    void aSaveWithNothingElseToMarkIsOneStatementWithItsEventsAndOneThatFailsLeavesNothingOfIt() throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + SCHEMA + ".step_events (id TEXT PRIMARY KEY, team TEXT NOT NULL)");
        }
        ClauseLedger ledger = new ClauseLedger();
        PgAgentStore store = new PgAgentStore(ds, SCHEMA, ledger);
        AgentKey alice = agent();
        Event a = Event.of(alice.team(), "alice",
                EventType.ASSISTANT_MESSAGE, Json.MAPPER.createObjectNode());
        Event b = Event.of(alice.team(), "alice",
                EventType.TOOL_CALL_FINISHED, Json.MAPPER.createObjectNode());
        List<Message> one = List.of(user("one"));

        long v = store.save(alice, new StepSave(conversation(one), List.of(), List.of(a, b)), store.adopt(alice, "host-a").version());
        assertThat(stepEvents(alice.team())).containsExactlyInAnyOrder(a.id(), b.id());
        assertThat(ledger.committed).containsExactly(List.of(a.id(), b.id()));
        assertThat(ledger.savedCalls).as("a ledger with nothing to write is not called").hasValue(0);
        assertThat(ledger.inTransaction).as("the events went with the save's statement").hasValue(0);
        String writer = rows(SCHEMA, alice).getFirst().writtenBy();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT (SELECT xmin::text FROM "
                + SCHEMA + ".agents WHERE team = ? AND name = ?), array_agg(DISTINCT xmin::text) FROM " + SCHEMA
                + ".step_events WHERE team = ?")) {
            ps.setString(1, alice.team());
            ps.setString(2, alice.name());
            ps.setString(3, alice.team());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertThat(rs.getString(1)).as("state and messages by one transaction").isEqualTo(writer);
                assertThat((String[]) rs.getArray(2).getArray()).as("and the events too").containsExactly(writer);
            }
        }

        // another replica takes alice over: this store's append (its memo says version v) is refused by the fence
        ClauseLedger theirLedger = new ClauseLedger();
        PgAgentStore theirs = new PgAgentStore(ds, SCHEMA, theirLedger);
        long tv = theirs.adopt(alice, "host-b").version();
        Event c = Event.of(alice.team(), "alice",
                EventType.TOOL_CALL_FINISHED, Json.MAPPER.createObjectNode());
        List<Message> two = plus(one, user("two"));
        assertThatThrownBy(() -> store.save(alice, new StepSave(conversation(two), List.of(), List.of(c)), v))
                .isInstanceOf(OwnershipLostException.class);
        assertThat(ledger.inTransaction).as("it was the one statement").hasValue(0);
        assertThat(stepEvents(alice.team())).as("the refused save's event was not written").doesNotContain(c.id());

        // an event the table already holds: the statement fails, and nothing of it stays
        assertThatThrownBy(() -> theirs.save(alice, new StepSave(conversation(two), List.of(), List.of(c, a)), tv))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("an event of its step is already stored");
        assertThat(theirLedger.inTransaction).hasValue(0);
        assertThat(stepEvents(alice.team())).containsExactlyInAnyOrder(a.id(), b.id());
        assertThat(messagesOf(rows(SCHEMA, alice))).isEqualTo(one);
        assertThat(theirLedger.committed).isEmpty();
        // (the failed save dropped the store's memo, so this one rewrites the conversation: the transaction's path)
        theirs.save(alice, new StepSave(conversation(two), List.of(), List.of(c)), tv);
        assertThat(theirLedger.inTransaction).hasValue(1);
        assertThat(theirLedger.committed).containsExactly(List.of(c.id()));
        assertThat(theirs.adopt(alice, "host-c").state().messages()).isEqualTo(two);
        assertThat(stepEvents(alice.team())).containsExactlyInAnyOrder(a.id(), b.id(), c.id());
    }

    @Test
    void aParkedPhaseAndItsDeadlineAreReadBackByTheNextOwner() {
        PgAgentStore store = new PgAgentStore(ds, SCHEMA, null);
        AgentKey alice = agent();
        AgentRecord first = store.adopt(alice, "host-a");
        assertThat(first.park()).isEqualTo(Park.IDLE);
        assertThat(first.state().messages()).isEmpty();
        Instant deadline = Instant.parse("2031-05-01T10:00:00Z");
        store.park(alice, Park.idleUntil(deadline), first.version());
        assertThat(store.adopt(alice, "host-b").park()).isEqualTo(Park.idleUntil(deadline));

        AgentRecord b = store.adopt(alice, "host-c");
        store.save(alice, working("turn-1"), b.version(), List.of());
        assertThat(store.adopt(alice, "host-d").park()).as("a working agent is resumed, not parked").isNull();
        AgentRecord d = store.adopt(alice, "host-e");
        store.park(alice, new Park(Phase.WAITING_REPLY, "req-7", null), d.version());
        assertThat(store.adopt(alice, "host-f").park()).isEqualTo(new Park(Phase.WAITING_REPLY, "req-7", null));
    }
    // ---- delta saves -------------------------------------------------------------------------------------------

    private static Message user(String text) {
        return Message.user(text);
    }

    private static AgentState conversation(List<Message> messages) {
        return working("turn-1").withMessages(messages);
    }

    private static List<Message> plus(List<Message> messages, Message... more) {
        List<Message> out = new ArrayList<>(messages);
        out.addAll(List.of(more));
        return List.copyOf(out);
    }

    /** A stored message row: its index, the message, and the transaction that wrote it (xmin). */
    private record Row(int idx, Message message, String writtenBy) {
    }

    private static List<Row> rows(String schema, AgentKey key) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT idx, message::text, xmin::text "
                + "FROM " + schema + ".agent_messages WHERE team = ? AND name = ? ORDER BY idx")) {
            ps.setString(1, key.team());
            ps.setString(2, key.name());
            try (ResultSet rs = ps.executeQuery()) {
                List<Row> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(new Row(rs.getInt(1), Json.read(rs.getString(2), Message.class), rs.getString(3)));
                }
                return out;
            }
        }
    }

    private static JsonNode stateJson(String schema, AgentKey key) throws SQLException {
        return Json.read(stateRow(schema, key), JsonNode.class);
    }

    private static String stateRow(String schema, AgentKey key) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT state::text FROM " + schema + ".agents WHERE team = ? AND name = ?")) {
            ps.setString(1, key.team());
            ps.setString(2, key.name());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    private static List<Message> messagesOf(List<Row> rows) {
        return rows.stream().map(Row::message).toList();
    }

    private static List<String> writers(List<Row> rows) {
        return rows.stream().map(Row::writtenBy).toList();
    }

    @Test
    void aSaveThatExtendsTheLastSavedConversationInsertsOnlyTheNewMessagesAndLeavesTheOthersUntouched() throws SQLException {
        PgAgentStore store = new PgAgentStore(ds, SCHEMA, null);
        AgentKey alice = agent();
        AgentRecord adopted = store.adopt(alice, "host-a");
        List<Message> two = List.of(user("do it"), Message.assistant(null, List.of(new ModelToolCall("c1", "bash", "{\"command\":\"true\"}"))));
        long v1 = store.save(alice, conversation(two), adopted.version(), List.of());
        List<Row> first = rows(SCHEMA, alice);
        assertThat(messagesOf(first)).isEqualTo(two);

        List<Message> three = plus(two, Message.tool("c1", "bash", "ok", false));
        long v2 = store.save(alice, conversation(three), v1, List.of());
        List<Row> second = rows(SCHEMA, alice);
        assertThat(messagesOf(second)).isEqualTo(three);
        assertThat(writers(second).subList(0, 2)).as("the messages saved before were not rewritten").isEqualTo(writers(first));
        assertThat(second.get(2).writtenBy()).isNotEqualTo(first.get(0).writtenBy());

        // a save that adds no message writes no message row
        store.save(alice, conversation(three), v2, List.of());
        assertThat(rows(SCHEMA, alice)).isEqualTo(second);

        JsonNode state = stateJson(SCHEMA, alice);
        assertThat(state.has("messages")).as("the state row no longer carries the conversation").isFalse();
        assertThat(state.path("messageCount").asInt()).isEqualTo(3);
        assertThat(state.path("turn").path("turnId").asText()).isEqualTo("turn-1");
        assertThat(store.adopt(alice, "host-b").state()).isEqualTo(conversation(three));
    }

    @Test
    void aReplacedConversationIsRewrittenWhole() throws SQLException {
        PgAgentStore store = new PgAgentStore(ds, SCHEMA, null);
        AgentKey alice = agent();
        List<Message> four = List.of(user("one"), user("two"), user("three"), user("four"));
        long v = store.save(alice, conversation(four), store.adopt(alice, "host-a").version(), List.of());
        List<Row> before = rows(SCHEMA, alice);

        // compaction: a summary instead of the first three, the fourth kept (the same object)
        List<Message> compacted = List.of(user("summary of one to three"), four.get(3));
        v = store.save(alice, conversation(compacted), v, List.of());
        assertThat(messagesOf(rows(SCHEMA, alice))).isEqualTo(compacted);
        assertThat(store.adopt(alice, "host-b").state().messages()).isEqualTo(compacted);

        // one earlier message replaced in place while the list grows: still a whole rewrite, never an append
        AgentRecord again = store.adopt(alice, "host-c");
        List<Message> grown = plus(again.state().messages(), user("five"));
        v = store.save(alice, conversation(grown), again.version(), List.of());
        List<Message> edited = List.of(user("summary, edited"), grown.get(1), grown.get(2), user("six"));
        store.save(alice, conversation(edited), v, List.of());
        List<Row> after = rows(SCHEMA, alice);
        assertThat(messagesOf(after)).isEqualTo(edited);
        assertThat(writers(after)).as("every row written by the last save").containsOnly(after.get(0).writtenBy())
                .doesNotContainAnyElementsOf(writers(before));
        assertThat(stateJson(SCHEMA, alice).path("messageCount").asInt()).isEqualTo(4);
    }

    @Test
    void aSaveRefusedByTheFenceWritesNoMessageAndNoStateEvenWhenItsMemoSaysAppend() throws SQLException {
        PgAgentStore replicaA = new PgAgentStore(ds, SCHEMA, null);
        PgAgentStore replicaB = new PgAgentStore(ds, SCHEMA, null);
        AgentKey alice = agent();
        List<Message> one = List.of(user("one"));
        long va = replicaA.save(alice, conversation(one), replicaA.adopt(alice, "host-a").version(), List.of());

        // replica B takes the agent over and rewrites its conversation
        AgentRecord b = replicaB.adopt(alice, "host-b");
        List<Message> theirs = List.of(user("theirs"), user("theirs too"));
        replicaB.save(alice, conversation(theirs), b.version(), List.of());
        List<Row> stored = rows(SCHEMA, alice);
        String state = stateRow(SCHEMA, alice);

        // A's memo still says "one message at va": its append is refused by the fence and rolled back
        assertThatThrownBy(() -> replicaA.save(alice, conversation(plus(one, user("mine"))), va, List.of()))
                .isInstanceOf(OwnershipLostException.class);
        assertThat(rows(SCHEMA, alice)).isEqualTo(stored);
        assertThat(stateRow(SCHEMA, alice)).isEqualTo(state);

        // and a refused whole rewrite (an old version the memo does not know) deletes nothing either
        assertThatThrownBy(() -> replicaA.save(alice, conversation(List.of(user("other"))), b.version() - 1, List.of()))
                .isInstanceOf(OwnershipLostException.class);
        assertThat(rows(SCHEMA, alice)).isEqualTo(stored);
        assertThat(replicaA.adopt(alice, "host-a").state().messages()).isEqualTo(theirs);
    }

    @Test
    void anAgentAdoptedBackAfterAnotherOwnersSavesIsReadWholeAndItsNextSaveAppendsToThat() throws SQLException {
        PgAgentStore replicaA = new PgAgentStore(ds, SCHEMA, null);
        PgAgentStore replicaB = new PgAgentStore(ds, SCHEMA, null);
        AgentKey alice = agent();
        List<Message> one = List.of(user("one"), user("two"));
        replicaA.save(alice, conversation(one), replicaA.adopt(alice, "host-a").version(), List.of());

        AgentRecord b = replicaB.adopt(alice, "host-b");
        List<Message> theirs = List.of(user("summary"), user("three"), user("four"));
        long vb = replicaB.save(alice, conversation(theirs), b.version(), List.of());
        vb = replicaB.park(alice, Park.IDLE, vb);

        AgentRecord back = replicaA.adopt(alice, "host-a");
        assertThat(back.state().messages()).as("A reads what B wrote, not what A last saved").isEqualTo(theirs);
        List<Row> before = rows(SCHEMA, alice);
        List<Message> next = plus(back.state().messages(), user("five"));
        replicaA.save(alice, conversation(next), back.version(), List.of());
        List<Row> after = rows(SCHEMA, alice);
        assertThat(messagesOf(after)).isEqualTo(next);
        assertThat(writers(after).subList(0, 3)).as("appended to the adopted conversation").isEqualTo(writers(before));
        assertThat(vb).isLessThan(back.version());
    }

    @Test
    void aParkKeepsTheMemoSoTheNextSaveStillAppends() throws SQLException {
        PgAgentStore store = new PgAgentStore(ds, SCHEMA, null);
        AgentKey alice = agent();
        List<Message> one = List.of(user("one"));
        long v = store.save(alice, conversation(one), store.adopt(alice, "host-a").version(), List.of());
        v = store.park(alice, Park.idleUntil(Instant.parse("2031-01-01T00:00:00Z")), v);
        List<Row> before = rows(SCHEMA, alice);
        store.save(alice, conversation(plus(one, user("two"))), v, List.of());
        assertThat(writers(rows(SCHEMA, alice)).get(0)).isEqualTo(before.get(0).writtenBy());
    }

    @Test
    void theMemoIsBoundedAndAForgottenAgentsNextSaveRewritesItsConversation() throws SQLException {
        PgAgentStore store = new PgAgentStore(ds, SCHEMA, null, 2);
        AgentKey a = agent();
        AgentKey b = agent();
        AgentKey c = agent();
        List<Message> one = List.of(user("one"));
        long va = store.save(a, conversation(one), store.adopt(a, "h").version(), List.of());
        store.save(b, conversation(one), store.adopt(b, "h").version(), List.of());
        store.save(c, conversation(one), store.adopt(c, "h").version(), List.of());
        assertThat(store.memoSize()).isEqualTo(2);

        List<Row> before = rows(SCHEMA, a);
        List<Message> two = plus(one, user("two"));
        store.save(a, conversation(two), va, List.of());
        List<Row> after = rows(SCHEMA, a);
        assertThat(messagesOf(after)).isEqualTo(two);
        assertThat(after.get(0).writtenBy()).as("a forgotten agent's messages are rewritten").isNotEqualTo(before.get(0).writtenBy());
        assertThat(store.memoSize()).isEqualTo(2);
    }

    @Test
    void theMigrationMovesAnOldRowsConversationIntoTheTableAndTheAgentResumesWithAllOfIt() throws IOException, SQLException {
        String schema = "mig_" + UUID.randomUUID().toString().substring(0, 8).replace('-', '_');
        AgentKey old = new AgentKey("t-old", "lead");
        AgentKey empty = new AgentKey("t-old", "bob");
        List<Message> conversation = List.of(user("hello"),
                Message.assistant("on it", List.of(new ModelToolCall("c1", "bash", "{\"command\":\"ls\"}"))),
                Message.tool("c1", "bash", "a\nb", false), Message.assistant("done", List.of()));
        AgentState oldState = conversation(conversation);
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
            s.execute(migration("V100__agent_host_tables.sql", schema));
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + schema + ".agents (team, name, state, status, turn_id) "
                    + "VALUES (?, ?, ?::jsonb, 'working', 'turn-1')")) {
                ps.setString(1, old.team());
                ps.setString(2, old.name());
                ps.setString(3, oldState.toJson()); // the format every build before delta saves wrote
                ps.executeUpdate();
                ps.setString(2, empty.name());
                ps.setString(3, AgentState.empty().toJson());
                ps.executeUpdate();
            }
            s.execute(migration("V101__agent_messages.sql", schema));
        }
        assertThat(messagesOf(rows(schema, old))).isEqualTo(conversation);
        assertThat(rows(schema, old)).extracting(Row::idx).containsExactly(0, 1, 2, 3);
        JsonNode state = stateJson(schema, old);
        assertThat(state.has("messages")).isFalse();
        assertThat(state.path("messageCount").asInt()).isEqualTo(4);
        assertThat(stateJson(schema, empty).path("messageCount").asInt()).isZero();

        PgAgentStore store = new PgAgentStore(ds, schema, null);
        AgentRecord resumed = store.adopt(old, "host-new");
        assertThat(resumed.state()).isEqualTo(oldState);
        assertThat(resumed.park()).as("its turn resumes").isNull();
        assertThat(store.adopt(empty, "host-new").state().messages()).isEmpty();
        List<Message> next = plus(conversation, user("and then"));
        store.save(old, resumed.state().withMessages(next), resumed.version(), List.of());
        assertThat(messagesOf(rows(schema, old))).isEqualTo(next);
        assertThat(conversationOf(schema, old)).isEqualTo(next);
    }

    @Test
    void aRowStillHoldingItsMessagesInTheStateIsReadFromTheStateAndRewrittenIntoTheTableAtItsNextSave() throws SQLException {
        PgAgentStore store = new PgAgentStore(ds, SCHEMA, null);
        AgentKey alice = agent();
        long v = store.save(alice, conversation(List.of(user("stale"))), store.adopt(alice, "h").version(), List.of());
        // a build before delta saves wrote the row since (a rolling upgrade), its conversation in the state
        List<Message> written = List.of(user("one"), user("two"));
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "UPDATE " + SCHEMA + ".agents SET state = ?::jsonb, version = version + 1 WHERE team = ? AND name = ?")) {
            ps.setString(1, conversation(written).toJson());
            ps.setString(2, alice.team());
            ps.setString(3, alice.name());
            ps.executeUpdate();
        }
        assertThat(conversationOf(SCHEMA, alice)).as("the shared query reads it too").isEqualTo(written);
        AgentRecord adopted = store.adopt(alice, "h2");
        assertThat(adopted.state().messages()).isEqualTo(written);
        List<Message> next = plus(adopted.state().messages(), user("three"));
        store.save(alice, conversation(next), adopted.version(), List.of());
        assertThat(messagesOf(rows(SCHEMA, alice))).isEqualTo(next);
        assertThat(v).isPositive();
    }

    @Test
    void anAgentWhoseMessageRowsDoNotMatchItsCountIsNotResumedWithAShorterConversation() throws SQLException {
        PgAgentStore store = new PgAgentStore(ds, SCHEMA, null);
        AgentKey alice = agent();
        store.save(alice, conversation(List.of(user("one"), user("two"))), store.adopt(alice, "h").version(), List.of());
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "DELETE FROM " + SCHEMA + ".agent_messages WHERE team = ? AND name = ? AND idx = 1")) {
            ps.setString(1, alice.team());
            ps.setString(2, alice.name());
            ps.executeUpdate();
        }
        assertThatThrownBy(() -> store.adopt(alice, "h2")).hasMessageContaining("its state says 2 messages");
    }

    @Test
    void theSharedConversationQueryReadsTheMessagesInOrderAndNoRowForAnUnknownAgent() throws SQLException {
        PgAgentStore store = new PgAgentStore(ds, SCHEMA, null);
        AgentKey alice = agent();
        assertThat(conversationOf(SCHEMA, alice)).isNull();
        store.adopt(alice, "h");
        assertThat(conversationOf(SCHEMA, alice)).isEmpty();
        List<Message> twelve = IntStream.range(0, 12).mapToObj(i -> user("m" + i)).toList();
        store.save(alice, conversation(twelve), store.adopt(alice, "h").version(), List.of());
        assertThat(conversationOf(SCHEMA, alice)).isEqualTo(twelve);
    }

    /** {@link PgAgentStore#conversationSql}'s answer, null for no row. */
    private static List<Message> conversationOf(String schema, AgentKey key) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(PgAgentStore.conversationSql(schema))) {
            ps.setString(1, key.team());
            ps.setString(2, key.name());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                return List.of(Json.read(rs.getString(1), Message[].class));
            }
        }
    }
}
