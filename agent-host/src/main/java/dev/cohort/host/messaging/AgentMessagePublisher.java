package dev.cohort.host.messaging;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.Topics;
import dev.cohort.core.trace.Tracing;
import dev.cohort.host.tracing.KafkaTracing;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Sends an {@link AgentMessage} to the inbox of its recipient: {@link Topics#LEAD_INBOX} keyed by team for the lead,
 * {@link Topics#TEAMMATE_INBOX} keyed by {@code <team>/<name>} for a teammate ({@link AgentMessage#key()}). The topic
 * is set per record, so one outgoing channel serves both. The returned stage completes when the broker acknowledged
 * the record, and fails with the broker's error otherwise: a caller that must not lose the message retries (the
 * message id stays the same, consumers dedupe on it).
 *
 * <p>Not a bean by itself: the service owns the channel. It declares an outgoing Kafka channel with String
 * serializers, {@code acks=all} and idempotence, and produces this publisher over it (agent-host README,
 * "Messaging"; tool-runner-service's {@code messaging/Publishers} is an example). A library bean injecting a fixed
 * channel would give every service that depends on agent-host (the scheduler too) a Kafka producer it never uses.
 */
public class AgentMessagePublisher {

    private final Emitter<String> channel;
    private final Tracing tracing;

    public AgentMessagePublisher(Emitter<String> channel) {
        this(channel, Tracing.NOOP);
    }

    /** Traced: each record gets a {@code publish} span and carries its W3C context in its headers ({@link KafkaTracing}). */
    public AgentMessagePublisher(Emitter<String> channel, Tracing tracing) {
        this.channel = Objects.requireNonNull(channel, "channel");
        this.tracing = Objects.requireNonNull(tracing, "tracing");
    }

    /** The inbox topic of agent {@code to}. */
    public static String topicFor(String to) {
        return Ids.LEAD.equals(to) ? Topics.LEAD_INBOX : Topics.TEAMMATE_INBOX;
    }

    /** Sends {@code m} to its recipient's inbox; completes on the broker's acknowledgement. */
    public CompletionStage<Void> send(AgentMessage m) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        KafkaTracing.Publish trace = KafkaTracing.publish(tracing, topicFor(m.to()));
        done.whenComplete((v, t) -> trace.done(t));
        OutgoingKafkaRecordMetadata<String> meta = OutgoingKafkaRecordMetadata.<String>builder()
                .withTopic(topicFor(m.to())).withKey(m.key()).withHeaders(trace.headers()).build();
        try {
            channel.send(Message.of(Json.write(m)).addMetadata(meta)
                    .withAck(() -> {
                        done.complete(null);
                        return CompletableFuture.completedFuture(null);
                    })
                    .withNack(t -> {
                        done.completeExceptionally(t);
                        return CompletableFuture.completedFuture(null);
                    }));
        } catch (RuntimeException e) {
            // e.g. the emitter's buffer is full or the channel is down: the same outcome as a nack
            done.completeExceptionally(e);
        }
        return done;
    }
}
