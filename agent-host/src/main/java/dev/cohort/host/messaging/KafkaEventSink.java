package dev.cohort.host.messaging;

import dev.cohort.core.engine.EventSink;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.Json;
import io.quarkus.logging.Log;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Fire-and-forget events on {@code cohort.events}, keyed by team, for services that do not own the event log (tool
 * runner, teammates): events are sent as they are, normally with {@code seq = 0}; the lead's {@code EventSequencer}
 * consumes them, gives them the team's next seq and stores them. {@link #emit} never blocks and never throws: events
 * are for observers, so a lost one is logged (team, event type, id), never fatal.
 *
 * <p>Not a bean by itself, for the reason given on {@link AgentMessagePublisher}: the service declares an outgoing
 * channel to {@code cohort.events} with String serializers and produces the sink over it (agent-host README,
 * "Messaging"; tool-runner-service's {@code messaging/Publishers} is an example).
 */
public class KafkaEventSink implements EventSink {

    private final Emitter<String> channel;

    public KafkaEventSink(Emitter<String> channel) {
        this.channel = Objects.requireNonNull(channel, "channel");
    }

    @Override
    public void emit(Event e) {
        try {
            OutgoingKafkaRecordMetadata<String> meta = OutgoingKafkaRecordMetadata.<String>builder().withKey(e.team()).build();
            channel.send(Message.of(Json.write(e)).addMetadata(meta).withNack(t -> {
                lost(e, t);
                return CompletableFuture.completedFuture(null);
            }));
        } catch (RuntimeException ex) {
            lost(e, ex);
        }
    }

    private static void lost(Event e, Throwable why) {
        Log.warnf("team=%s event=%s id=%s not published: %s", e.team(), e.type() == null ? null : e.type().wire(), e.id(),
                why.toString());
    }
}
