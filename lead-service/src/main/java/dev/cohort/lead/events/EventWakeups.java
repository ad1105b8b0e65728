package dev.cohort.lead.events;

import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.Topics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * Every replica hears every sequenced event and wakes its own SSE streams of that team. A record this replica
 * published ({@link Topics#EVENTS_HEADER_ORIGIN}) is skipped: its streams were woken when the event was committed. One
 * from another replica is announced from its headers (key = team, {@link Topics#EVENTS_HEADER_SEQ}) without parsing
 * its JSON; only a record without them is parsed (otherwise the lead would parse every event it had itself published).
 */
@ApplicationScoped
public class EventWakeups {

    @Inject
    EventHub hub;

    @Inject
    EventPublisher publisher;

    /** {@link EventPublisher#origin()} as the header carries it; resolved on first use (the publisher is a proxy). */
    private volatile byte[] ownOrigin;

    @Incoming("events-live")
    public void onEvent(ConsumerRecord<String, String> record) {
        try {
            Header origin = record.headers().lastHeader(Topics.EVENTS_HEADER_ORIGIN);
            if (origin != null && Arrays.equals(origin.value(), ownOrigin())) {
                return; // announced locally after its commit (EventService, TaskService)
            }
            Header seq = record.headers().lastHeader(Topics.EVENTS_HEADER_SEQ);
            if (seq != null && record.key() != null) {
                hub.announce(record.key(), Long.parseLong(new String(seq.value(), StandardCharsets.US_ASCII)));
                return;
            }
            Event e = Event.parse(record.value());
            if (e.seq() > 0) {
                hub.announce(e.team(), e.seq());
            }
        } catch (RuntimeException ignored) {
            // a wake-up only; the sequencer dead-letters poison records, streams read from the store
        }
    }

    private byte[] ownOrigin() {
        byte[] o = ownOrigin;
        if (o == null) {
            o = publisher.origin().getBytes(StandardCharsets.UTF_8);
            ownOrigin = o;
        }
        return o;
    }
}
