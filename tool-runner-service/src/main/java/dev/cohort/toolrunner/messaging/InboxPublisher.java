package dev.cohort.toolrunner.messaging;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.Topics;
import io.quarkus.logging.Log;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Publishes agent messages to the owning agent's inbox ({@link Topics#LEAD_INBOX} keyed by team for a lead,
 * {@link Topics#TEAMMATE_INBOX} keyed by {@code <team>/<name>} for a teammate) and events to
 * {@link Topics#EVENTS}. The returned stage completes when the broker acknowledged the record.
 */
@ApplicationScoped
public class InboxPublisher {
    @Inject
    @Channel("inbox-out")
    Emitter<String> inbox;

    @Inject
    @Channel("events-out")
    Emitter<String> events;

    /** The inbox topic of agent {@code to}. */
    public static String topicFor(String to) {
        return Ids.LEAD.equals(to) ? Topics.LEAD_INBOX : Topics.TEAMMATE_INBOX;
    }

    public CompletionStage<Void> send(AgentMessage m) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        OutgoingKafkaRecordMetadata<String> meta = OutgoingKafkaRecordMetadata.<String>builder()
                .withTopic(topicFor(m.to())).withKey(m.key()).build();
        inbox.send(Message.of(Json.write(m)).addMetadata(meta)
                .withAck(() -> {
                    done.complete(null);
                    return CompletableFuture.completedFuture(null);
                })
                .withNack(t -> {
                    done.completeExceptionally(t);
                    return CompletableFuture.completedFuture(null);
                }));
        return done;
    }

    /** Fire-and-forget: events are for observers; a lost one is logged, never fatal. */
    public void event(Event e) {
        try {
            OutgoingKafkaRecordMetadata<String> meta = OutgoingKafkaRecordMetadata.<String>builder()
                    .withKey(e.team()).build();
            events.send(Message.of(Json.write(e)).addMetadata(meta).withNack(t -> {
                Log.warnf("team=%s event %s not published: %s", e.team(), e.type(), t.toString());
                return CompletableFuture.completedFuture(null);
            }));
        } catch (RuntimeException ex) {
            Log.warnf("team=%s event %s not published: %s", e.team(), e.type(), ex.toString());
        }
    }
}
