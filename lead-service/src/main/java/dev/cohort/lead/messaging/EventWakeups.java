package dev.cohort.lead.messaging;

import dev.cohort.core.protocol.Event;
import dev.cohort.lead.service.EventHub;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/** Every replica hears every sequenced event and wakes its own SSE streams of that team. */
@ApplicationScoped
public class EventWakeups {

    @Inject
    EventHub hub;

    @Incoming("events-live")
    public void onEvent(ConsumerRecord<String, String> record) {
        try {
            Event e = Event.parse(record.value());
            if (e.seq() > 0) {
                hub.announce(e.team(), e.seq());
            }
        } catch (RuntimeException ignored) {
            // a wake-up only; the sequencer dead-letters poison records, streams read from the store
        }
    }
}
