package dev.cohort.lead.service;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.lead.messaging.EventPublisher;
import dev.cohort.lead.persistence.EventRepository;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * Records events: store with the team's next seq (the source of truth for replay), then publish on
 * {@code cohort.events} (other replicas wake their SSE streams, other consumers watch) and wake local streams.
 */
@ApplicationScoped
public class EventService {

    @Inject
    EventRepository repository;

    @Inject
    EventPublisher publisher;

    @Inject
    EventHub hub;

    @Inject
    dev.cohort.lead.usage.UsageMetrics usageMetrics;

    /** Stores, publishes and announces one event; returns it with its seq. */
    /** Stores and publishes an event with a typed payload (ARCHITECTURE §4.2). */
    public Event emit(String team, String agent, dev.cohort.core.protocol.payload.EventPayload payload) {
        return emit(team, agent, payload.type(), dev.cohort.core.protocol.Json.MAPPER.valueToTree(payload));
    }

    public Event emit(String team, String agent, EventType type, JsonNode data) {
        return record(Event.of(team, agent, type, data));
    }

    /** Stores (idempotently, by id), publishes and announces an event produced elsewhere or here. */
    public Event record(Event event) {
        Event stored = repository.append(event);
        announce(stored);
        return stored;
    }

    /**
     * Stores new events of one team in the caller's transaction (the lead's step save, {@code LeadInputLedger}); the
     * caller hands them to {@link #committed} after its commit.
     */
    public java.util.List<Event> storeIn(java.sql.Connection c, java.util.List<Event> events) throws java.sql.SQLException {
        return repository.appendIn(c, events);
    }

    /** Events stored by a committed transaction ({@link #storeIn}): local streams woken, published. */
    public void committed(java.util.List<Event> stored) {
        for (Event e : stored) {
            // storeIn stores only new events (a known id fails the save), so each usage row is new: count it once
            dev.cohort.lead.usage.UsageRow.of(e).ifPresent(usageMetrics::count);
            announce(e);
        }
    }

    private void announce(Event stored) {
        hub.announce(stored.team(), stored.seq());
        try {
            publisher.publish(stored);
        } catch (RuntimeException e) {
            // the store has it: SSE replays from the store, so a failed publish only delays other replicas' streams
            Log.warnf("team=%s event=%s seq=%d not published on cohort.events: %s", stored.team(), stored.type().wire(),
                    stored.seq(), e.getMessage());
        }
    }
}
