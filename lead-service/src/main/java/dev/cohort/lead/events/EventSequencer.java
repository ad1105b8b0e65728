package dev.cohort.lead.events;

import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.Topics;
import dev.cohort.host.store.StoreRetry;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * Gives a per-team seq to events other services publish unsequenced ({@code seq = 0}, e.g. the scheduler's
 * {@code cron_fired}): stores them (idempotently, by event id) and republishes them sequenced. Sequenced events
 * are already stored and are skipped: those a lead replica published carry their seq as a header
 * ({@link Topics#EVENTS_HEADER_SEQ}) and are skipped before their JSON is parsed (most records on the topic
 * are the lead's own). One consumer group, so exactly one replica handles each team's partition.
 */
@ApplicationScoped
public class EventSequencer {

    @Inject
    EventService events;

    /**
     * Not {@code @Blocking}: a sequenced record (nearly every record: the lead's own) is skipped right on the consumer's
     * event loop, without a hand-off to a worker thread per record; only an unsequenced one is stored, on a worker. The
     * channel handles one record at a time, so the order per partition is kept, and a failed store is a nack (the
     * channel's dead-letter queue).
     */
    @Incoming("events-sequencer")
    public Uni<Void> onEvent(ConsumerRecord<String, String> record) {
        if (record.headers().lastHeader(Topics.EVENTS_HEADER_SEQ) != null) {
            return Uni.createFrom().voidItem(); // sequenced, so stored by the lead replica that published it
        }
        return Uni.createFrom().<Void>item(() -> {
            store(record);
            return null;
        }).runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
    }

    private void store(ConsumerRecord<String, String> record) {
        Event e = Event.parse(record.value());
        if (e.seq() == 0) {
            // the database briefly away is not a bad record: retried in place (the event's id keeps it stored once)
            StoreRetry.run("event " + e.id(), () -> events.record(e));
        }
    }
}
