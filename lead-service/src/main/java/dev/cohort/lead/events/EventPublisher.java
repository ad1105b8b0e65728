package dev.cohort.lead.events;

import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.Topics;
import dev.cohort.platform.kafka.KafkaRecordSender;
import dev.cohort.platform.kafka.RecordSender;
import io.quarkus.logging.Log;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Publishes sequenced events on {@code cohort.events}, keyed by team (so one team's events stay in order), without
 * waiting for the broker: {@link #publish} is called inside the agent loop, after the event is stored, and the store
 * is the source of truth (SSE replays from it), so a slow or unreachable broker only delays other replicas' streams.
 * A refused send is logged with team, event and seq; nothing is thrown into the loop. A sequenced event's record carries
 * its seq and this replica's id as headers ({@link Topics#EVENTS_HEADER_SEQ}, {@link Topics#EVENTS_HEADER_ORIGIN}), so
 * the lead's own consumers of the topic skip it without parsing its JSON (parsing every event the lead
 * published cost a third of its CPU samples).
 */
@ApplicationScoped
public class EventPublisher {

    @Inject
    RecordSender sender;

    /** This replica's id on the records it publishes: new at every start (one process, one in-memory event buffer). */
    private final String origin = UUID.randomUUID().toString();

    private final byte[] originBytes = origin.getBytes(StandardCharsets.UTF_8);

    EventPublisher() {
    }

    /** Warms the service's producer (metadata of the topics the lead sends to), so the first event does not wait. */
    void onStart(@Observes StartupEvent ev) {
        if (sender instanceof KafkaRecordSender k) {
            k.warm(List.of(Topics.EVENTS, Topics.LEAD_INBOX, Topics.TEAMMATE_INBOX));
        }
    }

    /** Over another sender (tests). */
    EventPublisher(RecordSender sender) {
        this.sender = sender;
    }

    /**
     * Hands the event to the producer and returns at once. The stage completes with {@code true} when the broker
     * acknowledged it and with {@code false} when the send was refused (logged); it never fails and nobody needs to
     * wait for it.
     */
    public CompletionStage<Boolean> publish(Event event) {
        return publish(event, Json.write(event));
    }

    /** {@link #publish(Event)} with the event already written as JSON ({@code json}: the record's value). */
    public CompletionStage<Boolean> publish(Event event, String json) {
        try {
            RecordHeaders headers = null;
            if (event.seq() > 0) {
                headers = new RecordHeaders();
                headers.add(Topics.EVENTS_HEADER_SEQ, Long.toString(event.seq()).getBytes(StandardCharsets.US_ASCII));
                headers.add(Topics.EVENTS_HEADER_ORIGIN, originBytes);
            }
            return sender.send(Topics.EVENTS, event.team(), json, headers).handle((v, t) -> {
                if (t != null) {
                    refused(event, t);
                    return false;
                }
                return true;
            });
        } catch (RuntimeException e) {
            refused(event, e);
            return CompletableFuture.completedFuture(false);
        }
    }

    /** The id this replica puts on the records it publishes ({@link Topics#EVENTS_HEADER_ORIGIN}). */
    public String origin() {
        return origin;
    }

    private static void refused(Event event, Throwable t) {
        Log.warnf("team=%s event=%s seq=%d not published on cohort.events (the store has it; SSE replays from it): %s",
                event.team(), event.type().wire(), event.seq(), t.toString());
    }
}
