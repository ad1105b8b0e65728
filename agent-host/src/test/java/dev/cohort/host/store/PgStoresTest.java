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
