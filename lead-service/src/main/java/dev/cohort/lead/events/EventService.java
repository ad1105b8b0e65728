package dev.cohort.lead.events;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.payload.EventPayload;
import dev.cohort.host.store.EventLog;
import dev.cohort.host.store.EventsClause;
import dev.cohort.lead.usage.UsageMetrics;
import dev.cohort.lead.usage.UsageRow;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.List;

/**
 * Records events: store with the team's next seq (the source of truth for replay), then publish on
 * {@code cohort.events} (other replicas wake their SSE streams, other consumers watch) and wake local streams.
 */
@ApplicationScoped
public class EventService implements EventLog {

    @Inject
    EventRepository repository;

    @Inject
    EventPublisher publisher;

    @Inject
    EventHub hub;

    @Inject
    UsageMetrics usageMetrics;

    /** Stores, publishes and announces one event; returns it with its seq. */
    /** Stores and publishes an event with a typed payload (ARCHITECTURE §4.2). */
    public Event emit(String team, String agent, EventPayload payload) {
        return emit(team, agent, payload.type(), Json.MAPPER.valueToTree(payload));
    }

    /** As {@link #emit(String, String, EventPayload)}, about prompt {@code promptId} (in the event's envelope). */
    public Event emit(String team, String agent, EventPayload payload, String promptId) {
        return record(Event.of(team, agent, payload).withPromptId(promptId));
    }

    public Event emit(String team, String agent, EventType type, JsonNode data) {
        return record(Event.of(team, agent, type, data));
    }

    /** Stores (idempotently, by id), publishes and announces an event produced elsewhere or here. */
    public Event record(Event event) {
        awaitAhead(event.team());
        return store(event);
    }

    private Event store(Event event) {
        Event stored = repository.append(event);
        announce(stored);
        return stored;
    }

    /** Per team: the event being stored off the caller's thread ({@link #recordAhead}), until the team's next store. */
    private final ConcurrentHashMap<String, Ahead> ahead =
            new ConcurrentHashMap<>();

    /** An event stored ahead; {@code retried} once a waiter stored it after its own store failed. */
    private static final class Ahead {
        final Event event;
        final CompletableFuture<Event> done = new CompletableFuture<>();
        boolean retried;

        Ahead(Event event) {
            this.event = event;
        }
    }

    /**
     * Stores, publishes and announces the event on another thread and returns at once (e.g. the lead's
     * {@code tool_call_started}, so the call goes to the tool runner without waiting for that transaction). The order
     * of the team's events is kept: the team's next {@link #record}, and the step save that stores the call's
     * {@code tool_call_finished} (before it opens its transaction), first wait for it ({@link #awaitAhead}). Nothing
     * is lost by a crash meanwhile: a call whose result was not saved is sent again when the turn resumes, with a
     * {@code tool_call_started} of its own (the runner answers the same call id from its journal, without running it
     * again).
     */
    public void recordAhead(Event event) {
        awaitAhead(event.team()); // one at a time per team
        Ahead a = new Ahead(event);
        ahead.put(event.team(), a);
        Thread.ofVirtual().name("event-ahead-" + event.team()).start(() -> {
            try {
                a.done.complete(store(event));
            } catch (Throwable t) {
                a.done.completeExceptionally(t);
            }
        });
    }

    /**
     * Waits for the team's event stored ahead, if any, and stores it here when its own store failed (so it is never
     * lost: while that fails, every next store of the team fails with it, as the event's own would have). Called
     * outside any transaction: by {@link #record}, and by the lead's step save before it opens its own (whose
     * {@link #storeIn} then numbers the call's {@code tool_call_finished} after its {@code tool_call_started}).
     */
    public void awaitAhead(String team) {
        Ahead a = ahead.get(team);
        if (a == null) {
            return;
        }
        try {
            a.done.join();
        } catch (CompletionException e) {
            synchronized (a) { // several waiters: one stores it (by id, so never twice), the others find it done
                if (!a.retried) {
                    Log.warnf("team=%s event=%s stored ahead failed (%s): storing it now", team, a.event.id(),
                            e.getCause() == null ? e : e.getCause());
                    store(a.event); // throws as a synchronous store would have; the next waiter tries again
                    a.retried = true;
                }
            }
        }
        ahead.remove(team, a); // only once it is stored: a concurrent waiter still finds it until then
    }

    /**
     * Stores new events of one team in the caller's transaction (the lead's step save, {@code LeadInputLedger}); the
     * caller hands them to {@link #committed} after its commit.
     */
    @Override
    public List<Event> storeIn(Connection c, List<Event> events) throws SQLException {
        return repository.appendIn(c, events);
    }

    /**
     * New events of one team stored by the lead's step save statement itself (one round trip with the save), or null
     * when they need {@link #storeIn}; the caller hands them to {@link #committed} after the statement.
     */
    @Override
    public EventsClause clause(List<Event> events) {
        return repository.clause(events);
    }

    /** The lead's step save waits for the team's event stored ahead ({@link #awaitAhead}) before it stores its own. */
    @Override
    public void beforeStore(String team) {
        awaitAhead(team);
    }

    /** Events stored by a committed transaction ({@link #storeIn}): local streams woken, published. */
    @Override
    public void committed(List<Event> stored) {
        for (Event e : stored) {
            // storeIn stores only new events (a known id fails the save), so each usage row is new: count it once
            UsageRow.of(e).ifPresent(usageMetrics::count);
            announce(e);
        }
    }

    /**
     * Wakes the team's local streams and publishes, with the event written as JSON once for both: the SSE streams of
     * this replica serve it from the hub's recent events (no store read) and the Kafka record carries the same text.
     * Its {@code ts} is first rounded to the microsecond, as PostgreSQL stores it, so a stream that reads the event
     * from the store (resume, another replica) gets the same value.
     */
    private void announce(Event committed) {
        Event stored = asStored(committed);
        String json = Json.write(stored);
        hub.announce(stored.team(), new EventHub.Recent(stored.seq(), stored.type().wire(), json));
        try {
            publisher.publish(stored, json);
        } catch (RuntimeException e) {
            // the store has it: SSE replays from the store, so a failed publish only delays other replicas' streams
            Log.warnf("team=%s event=%s seq=%d not published on cohort.events: %s", stored.team(), stored.type().wire(),
                    stored.seq(), e.getMessage());
        }
    }

    /** The event with its {@code ts} as a {@code timestamptz} column keeps it: rounded to the microsecond, half up. */
    static Event asStored(Event e) {
        Instant ts = e.ts();
        if (ts == null || ts.getNano() % 1000 == 0) {
            return e;
        }
        Instant micros = ts.truncatedTo(ChronoUnit.MICROS);
        if (ts.getNano() % 1000 >= 500) {
            micros = micros.plusNanos(1000);
        }
        return new Event(e.id(), e.team(), e.agent(), e.seq(), micros, e.type(), e.promptId(), e.data());
    }
}
