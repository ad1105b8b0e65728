package dev.cohort.lead;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.engine.AgentState;
import dev.cohort.core.engine.Message;
import dev.cohort.core.engine.StepSave;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Json;
import dev.cohort.host.store.EventLog;
import dev.cohort.host.store.EventsClause;
import dev.cohort.host.store.PgAgentStore;
import dev.cohort.lead.agent.LeadInputLedger;
import dev.cohort.lead.events.EventRepository;
import dev.cohort.lead.events.EventService;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import java.util.UUID;
import org.assertj.core.api.Assertions;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/**
 * The event log's numbering: per team, gap-free, and a redelivered event (same id) stored once; concurrent appends of
 * one team group-committed (several events per transaction) with the same guarantees.
 */
@QuarkusTest
class EventLogTest {

    @Inject
    EventRepository events;

    @Inject
    AgroalDataSource ds;

    @Inject
    EventService service;

    private static Event event(String team, String text) {
        return Event.of(team, "lead", EventType.ASSISTANT_MESSAGE, Json.MAPPER.createObjectNode().put("text", text));
    }

    @Test
    void aRedeliveredEventIsStoredOnceAndLeavesNoGapInTheTeamsSequence() {
        String team = "log-" + UUID.randomUUID().toString().substring(0, 8);
        Event first = events.append(event(team, "one"));
        assertThat(first.seq()).isEqualTo(1);

        Event again = events.append(first.withSeq(0));
        assertThat(again.seq()).as("the stored form is returned").isEqualTo(1);
        assertThat(again.data().path("text").asText()).isEqualTo("one");
        assertThat(events.lastSeq(team)).as("the duplicate did not take a number").isEqualTo(1);

        Event second = events.append(event(team, "two"));
        assertThat(second.seq()).isEqualTo(2);
        assertThat(events.after(team, 0, 10)).extracting(Event::seq).containsExactly(1L, 2L);
    }

    @Test
    void aBatchOfNewEventsTakesConsecutiveNumbersInItsOrder() {
        String team = "log-" + UUID.randomUUID().toString().substring(0, 8);
        events.append(event(team, "zero"));
        List<Event> batch = List.of(event(team, "a"), event(team, "b"), event(team, "c"));

        List<Event> stored = events.appendBatch(batch);

        assertThat(stored).extracting(Event::seq).containsExactly(2L, 3L, 4L);
        assertThat(events.after(team, 0, 10)).extracting(e -> e.data().path("text").asText())
                .containsExactly("zero", "a", "b", "c");
        assertThat(events.lastSeq(team)).isEqualTo(4);
    }

    @Test
    void aBatchStoredAsOneStatementKeepsEveryFieldOfEachEvent() {
        String team = "log-" + UUID.randomUUID().toString().substring(0, 8);
        // a timestamp with microseconds, a null agent, data with quotes, a backslash and a non-ASCII text
        Event a = new Event(UUID.randomUUID().toString(), team, null, 0, Instant.parse("2026-12-02T10:11:12.345678Z"),
                EventType.ASSISTANT_MESSAGE, Json.MAPPER.createObjectNode().put("text", "say \"hi\" \\ ünïcode {NULL}"));
        Event b = new Event(UUID.randomUUID().toString(), team, "w1", 0, Instant.parse("2026-12-02T10:11:13Z"),
                EventType.TASK_CLAIMED, Json.MAPPER.createObjectNode().put("id", "task_1").put("owner", "w1"));

        events.appendBatch(List.of(a, b));

        assertThat(events.after(team, 0, 10)).containsExactly(a.withSeq(1), b.withSeq(2));
    }

    @Test
    void aBatchProjectsTheRosterInItsOrderTheLastClaimOfAnOwnerWinsAndACompletionAfterItClears() throws Exception {
        String team = "log-" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO lead.roster (team, name, phase) VALUES (?, ?, 'idle')")) {
            for (String name : List.of("x", "y", "z")) {
                ps.setString(1, team);
                ps.setString(2, name);
                ps.executeUpdate();
            }
        }
        events.appendBatch(List.of(claimed(team, "x", "task_1"), claimed(team, "y", "task_2"), claimed(team, "x", "task_3"),
                claimed(team, "z", "task_4"),
                Event.of(team, "z", EventType.TASK_COMPLETED, Json.MAPPER.createObjectNode().put("id", "task_4")
                        .put("owner", "z")),
                claimed(team, "y", "task_5")));

        Map<String, String> current = new HashMap<>();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT name, current_task FROM lead.roster WHERE team = ?")) {
            ps.setString(1, team);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    current.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        Map<String, String> expected = new HashMap<>();
        expected.put("x", "task_3"); // its second claim of the run
        expected.put("y", "task_5"); // its claim after the completion of z's task, in the next run
        expected.put("z", null); // its task completed after its claim
        assertThat(current).isEqualTo(expected);
    }

    private static Event claimed(String team, String owner, String task) {
        return Event.of(team, owner, EventType.TASK_CLAIMED, Json.MAPPER.createObjectNode().put("id", task)
                .put("owner", owner).put("via", "claim-next"));
    }

    @Test
    void aBatchHoldingAStoredEventStoresNothingSoEachIsWrittenAloneAndTheDuplicateTakesNoNumber() {
        String team = "log-" + UUID.randomUUID().toString().substring(0, 8);
        Event first = events.append(event(team, "one"));

        assertThat(events.appendBatch(List.of(event(team, "two"), first.withSeq(0), event(team, "three"))))
                .as("a batch with a redelivered event is refused whole").isNull();
        assertThat(events.lastSeq(team)).as("and its counter bump rolled back").isEqualTo(1);
        assertThat(events.after(team, 0, 10)).extracting(Event::seq).containsExactly(1L);
    }

    @Test
    void concurrentAppendsOfOneTeamGetDistinctGapFreeNumbersInTheOrderTheyReturnAndDuplicatesAreStoredOnce()
            throws Exception {
        String team = "log-" + UUID.randomUUID().toString().substring(0, 8);
        int threads = 16;
        int perThread = 40;
        Event redelivered = events.append(event(team, "redelivered"));
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<List<Event>>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    List<Event> mine = new ArrayList<>();
                    for (int i = 0; i < perThread; i++) {
                        // every thread also redelivers the first event once: stored once, no number taken
                        mine.add(events.append(i == thread % perThread ? redelivered.withSeq(0)
                                : event(team, thread + "/" + i)));
                    }
                    return mine;
                }));
            }
            List<Long> seqs = new ArrayList<>();
            for (Future<List<Event>> f : futures) {
                List<Event> mine = f.get();
                assertThat(mine).filteredOn(e -> e.id().equals(redelivered.id())).extracting(Event::seq).containsOnly(1L);
                List<Long> fresh = mine.stream().filter(e -> !e.id().equals(redelivered.id())).map(Event::seq).toList();
                assertThat(fresh).as("one caller's events are numbered in the order it appended them").isSorted()
                        .doesNotHaveDuplicates();
                seqs.addAll(fresh);
            }
            long expected = 1 + (long) threads * (perThread - 1);
            assertThat(seqs).as("distinct and gap-free after the first").containsExactlyInAnyOrderElementsOf(
                    LongStream.rangeClosed(2, expected).boxed().toList());
            assertThat(events.lastSeq(team)).isEqualTo(expected);
            assertThat(events.after(team, 0, 10_000)).hasSize((int) expected);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void eventsStoredInACallersTransactionTakeTheTeamsNextNumbersOnlyWhenItCommits() throws Exception {
        String team = "log-" + UUID.randomUUID().toString().substring(0, 8);
        events.append(event(team, "zero"));
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            assertThat(events.appendIn(c, List.of(event(team, "lost"), event(team, "also lost"))))
                    .extracting(Event::seq).containsExactly(2L, 3L);
            c.rollback(); // the step's save failed: its events are gone with it, numbers included
        }
        assertThat(events.lastSeq(team)).isEqualTo(1);
        List<Event> stored;
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            stored = events.appendIn(c, List.of(event(team, "reply"), event(team, "result")));
            c.commit();
        }
        assertThat(stored).extracting(Event::seq).containsExactly(2L, 3L);
        assertThat(events.append(event(team, "after")).seq()).as("later appends follow").isEqualTo(4);
        assertThat(events.after(team, 0, 10)).extracting(e -> e.data().path("text").asText())
                .containsExactly("zero", "reply", "result", "after");
    }

    @Test
    void aStepSavesEventAndUsageAreStoredByTheSavesOwnStatementInTheTeamsOrderAndADuplicateUndoesTheWholeSave()
            throws Exception {
        String team = LeadAgentTest.newTeam("log-save");
        long before = events.append(event(team, "zero")).seq();
        List<List<Event>> committed = new CopyOnWriteArrayList<>();
        var inTransaction = new AtomicInteger();
        EventLog log = new EventLog() {
            @Override
            public List<Event> storeIn(Connection c, List<Event> stepEvents) throws SQLException {
                inTransaction.incrementAndGet(); // a save that is not one statement (here: a whole rewrite)
                return events.appendIn(c, stepEvents);
            }

            @Override
            public EventsClause clause(List<Event> stepEvents) {
                return events.clause(stepEvents);
            }

            @Override
            public void committed(List<Event> stored) {
                committed.add(stored);
            }
        };
        var store = new PgAgentStore(ds, "lead",
                new LeadInputLedger(log));
        var probe = new AgentKey(team, "probe"); // not the team's lead: its host leaves it alone
        long v = store.adopt(probe, "host-a").version();
        var turn = new AgentState.TurnProgress("turn-1", "prompt", false, 1, 0, null, null);
        List<Message> two = List.of(Message.user("go"),
                Message.assistant("done", List.of()));
        var state = new AgentState(AgentState.VERSION, two, List.of(), 0,
                List.of(), null, turn);
        Event reply = Event.of(team, "probe", EventType.ASSISTANT_MESSAGE, Json.MAPPER.createObjectNode()
                .put("text", "done").put("turnId", "turn-1").put("model", "m").put("inputTokens", 100)
                .put("outputTokens", 7));

        v = store.save(probe, new StepSave(state, List.of(), List.of(reply)), v);
        assertThat(inTransaction).as("stored by the save's own statement").hasValue(0);
        assertThat(committed).hasSize(1);
        assertThat(committed.getFirst()).extracting(Event::id, Event::seq).containsExactly(
                Tuple.tuple(reply.id(), before + 1));
        assertThat(events.after(team, before, 10)).extracting(Event::id).containsExactly(reply.id());
        try (var c = ds.getConnection(); var ps = c.prepareStatement("SELECT prompt_tokens, completion_tokens, turn_id, "
                + "(SELECT xmin::text FROM lead.events WHERE id = ?) = xmin::text, (SELECT xmin::text FROM lead.agents "
                + "WHERE team = ? AND name = 'probe') = xmin::text FROM lead.usage WHERE event_id = ?")) {
            ps.setString(1, reply.id());
            ps.setString(2, team);
            ps.setString(3, reply.id());
            try (var rs = ps.executeQuery()) {
                assertThat(rs.next()).as("the usage row").isTrue();
                assertThat(List.of(rs.getLong(1), rs.getLong(2))).containsExactly(100L, 7L);
                assertThat(rs.getString(3)).isEqualTo("turn-1");
                assertThat(rs.getBoolean(4)).as("written with the event").isTrue();
                assertThat(rs.getBoolean(5)).as("and with the state, by one transaction").isTrue();
            }
        }
        assertThat(events.append(event(team, "after")).seq()).as("later appends follow").isEqualTo(before + 2);

        // an event id already stored: the statement fails whole (state, message, counter), nothing announced
        long at = v;
        var three = state.withMessages(List.of(two.get(0), two.get(1), Message.user("more")));
        Assertions.assertThatThrownBy(() -> store.save(probe, new StepSave(three, List.of(), List.of(reply)), at))
                .isInstanceOf(IllegalStateException.class);
        assertThat(events.lastSeq(team)).isEqualTo(before + 2);
        assertThat(committed).hasSize(1);
        Event next = Event.of(team, "probe", EventType.TOOL_CALL_FINISHED, Json.MAPPER.createObjectNode());
        store.save(probe, new StepSave(three, List.of(), List.of(next)), at); // the failure dropped the memo: a rewrite, in a transaction
        assertThat(inTransaction).hasValue(1);
        assertThat(committed.getLast()).extracting(Event::seq).containsExactly(before + 3);
        assertThat(store.adopt(probe, "host-b").state().messages()).isEqualTo(three.messages());
    }

    @Test
    void anEventStoredAheadComesBeforeTheTeamsNextEventAndBeforeAStepSavesEvents() throws Exception {
        String team = "log-" + UUID.randomUUID().toString().substring(0, 8);
        for (int i = 0; i < 30; i++) {
            // the lead's tool_call_started, stored while the call runs; then the next event, or the step save's
            service.recordAhead(event(team, "started " + i));
            if (i % 2 == 0) {
                service.record(event(team, "finished " + i));
            } else {
                service.awaitAhead(team); // what the save does before it opens its transaction
                try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(false);
                    service.storeIn(c, List.of(event(team, "finished " + i)));
                    c.commit();
                }
            }
        }
        List<String> texts = events.after(team, 0, 100).stream().map(e -> e.data().path("text").asText()).toList();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            expected.add("started " + i);
            expected.add("finished " + i);
        }
        assertThat(texts).containsExactlyElementsOf(expected);
        assertThat(events.after(team, 0, 100)).extracting(Event::seq)
                .containsExactlyElementsOf(LongStream.rangeClosed(1, 60).boxed().toList());
    }

    @Test
    void anEventStoredAheadAgainIsStoredOnceAndWaitingWithNothingAheadReturnsAtOnce() {
        String team = "log-" + UUID.randomUUID().toString().substring(0, 8);
        Event started = event(team, "started");
        service.recordAhead(started);
        service.awaitAhead(team);
        service.record(event(team, "finished"));
        service.awaitAhead(team); // nothing left ahead: returns at once
        assertThat(events.after(team, 0, 10)).extracting(e -> e.data().path("text").asText())
                .containsExactly("started", "finished");
        // the same id stored ahead again (a resumed turn's redelivery) is stored once
        service.recordAhead(started);
        service.record(event(team, "later"));
        assertThat(events.after(team, 0, 10)).extracting(e -> e.data().path("text").asText())
                .containsExactly("started", "finished", "later");
    }
}
