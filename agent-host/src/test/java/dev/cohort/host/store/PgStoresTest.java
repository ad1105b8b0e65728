package dev.cohort.host.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.core.engine.AgentState;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.host.AgentRecord;
import dev.cohort.core.host.OwnershipLostException;
import dev.cohort.core.host.Park;
import dev.cohort.core.host.Phase;
import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.devstack.pg.LocalPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The shared stores against a real PostgreSQL (devstack's), in a schema created from the module's own migration
 * ({@code db/agent-host/V100__agent_host_tables.sql}, the Flyway placeholder filled in as Flyway would): the inbox
 * dedupes and reads per agent, a save marks exactly the inputs its state contains in the same transaction, and a save
 * refused by the fence marks nothing.
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
        String ddl;
        try (InputStream in = PgStoresTest.class.getResourceAsStream("/db/agent-host/V100__agent_host_tables.sql")) {
            ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${flyway:defaultSchema}", SCHEMA);
        }
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS " + SCHEMA);
            s.execute(ddl);
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
    private static final class EventLedger implements InputLedger {
        final List<List<String>> committed = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void saved(Connection c, AgentKey key, AgentState state, List<String> injectedIds) {
        }

        @Override
        public boolean storesEvents() {
            return true;
        }

        @Override
        public List<dev.cohort.core.protocol.Event> storeEvents(Connection c, AgentKey key,
                List<dev.cohort.core.protocol.Event> events) throws SQLException {
            try (java.sql.PreparedStatement ps = c.prepareStatement("INSERT INTO " + SCHEMA + ".step_events (id, team) VALUES (?, ?)")) {
                for (dev.cohort.core.protocol.Event e : events) {
                    ps.setString(1, e.id());
                    ps.setString(2, key.team());
                    ps.executeUpdate();
                }
            }
            return events;
        }

        @Override
        public void eventsCommitted(AgentKey key, List<dev.cohort.core.protocol.Event> stored) {
            committed.add(stored.stream().map(dev.cohort.core.protocol.Event::id).toList());
        }
    }

    private static List<String> stepEvents(String team) throws SQLException {
        try (Connection c = ds.getConnection(); java.sql.PreparedStatement ps = c.prepareStatement(
                "SELECT id FROM " + SCHEMA + ".step_events WHERE team = ? ORDER BY id")) {
            ps.setString(1, team);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                List<String> out = new java.util.ArrayList<>();
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
        EventLedger ledger = new EventLedger();
        PgAgentStore store = new PgAgentStore(ds, SCHEMA, ledger);
        assertThat(store.storesEvents()).isTrue();
        AgentKey alice = agent();
        AgentRecord mine = store.adopt(alice, "host-a");
        AgentRecord theirs = store.adopt(alice, "host-b");
        dev.cohort.core.protocol.Event a = dev.cohort.core.protocol.Event.of(alice.team(), "alice",
                dev.cohort.core.protocol.EventType.ASSISTANT_MESSAGE, dev.cohort.core.protocol.Json.MAPPER.createObjectNode());
        dev.cohort.core.protocol.Event b = dev.cohort.core.protocol.Event.of(alice.team(), "alice",
                dev.cohort.core.protocol.EventType.TOOL_CALL_FINISHED, dev.cohort.core.protocol.Json.MAPPER.createObjectNode());

        assertThatThrownBy(() -> store.save(alice, working("turn-a"), mine.version(), List.of(), List.of(a, b)))
                .isInstanceOf(OwnershipLostException.class);
        assertThat(stepEvents(alice.team())).as("the refused save's events were rolled back with it").isEmpty();
        assertThat(ledger.committed).as("and never announced").isEmpty();

        store.save(alice, working("turn-b"), theirs.version(), List.of(), List.of(a, b));
        assertThat(stepEvents(alice.team())).containsExactlyInAnyOrder(a.id(), b.id());
        assertThat(ledger.committed).containsExactly(List.of(a.id(), b.id()));

        PgAgentStore plain = new PgAgentStore(ds, SCHEMA, null);
        assertThat(plain.storesEvents()).isFalse();
        AgentRecord next = plain.adopt(alice, "host-c");
        assertThatThrownBy(() -> plain.save(alice, working("turn-c"), next.version(), List.of(), List.of(a)))
                .as("a store whose ledger keeps no events refuses them instead of dropping them")
                .isInstanceOf(UnsupportedOperationException.class);
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
}
