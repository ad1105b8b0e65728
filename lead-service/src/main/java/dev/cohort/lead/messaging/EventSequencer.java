package dev.cohort.lead.messaging;

import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.Topics;
import dev.cohort.lead.service.EventService;
import io.smallrye.common.annotation.Blocking;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * Gives a per-team seq to events other services publish unsequenced ({@code seq = 0}, e.g. the scheduler's
 * {@code cron_fired}): stores them (idempotently, by event id) and republishes them sequenced. Sequenced events
 * are already stored and are skipped: those a lead replica published carry their seq as a header
 * ({@link Topics#EVENTS_HEADER_SEQ}) and are skipped before their JSON is parsed (issue 13: most records on the topic
 * are the lead's own). One consumer group, so exactly one replica handles each team's partition.
 */
@ApplicationScoped
public class EventSequencer {

    @Inject
    EventService events;

    @Incoming("events-sequencer")
    @Blocking
    public void onEvent(ConsumerRecord<String, String> record) {
        if (record.headers().lastHeader(Topics.EVENTS_HEADER_SEQ) != null) {
            return; // sequenced, so stored by the lead replica that published it
        }
        Event e = Event.parse(record.value());
        if (e.seq() == 0) {
            // the database briefly away is not a bad record: retried in place (the event's id keeps it stored once)
            dev.cohort.core.host.StoreRetry.run("event " + e.id(), () -> events.record(e));
        }
    }
}
