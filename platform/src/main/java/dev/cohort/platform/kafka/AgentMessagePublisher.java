package dev.cohort.platform.kafka;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.Topics;
import dev.cohort.core.trace.Tracing;
import dev.cohort.platform.tracing.KafkaTracing;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.Objects;

/**
 * Sends an {@link AgentMessage} to the inbox of its recipient: {@link Topics#LEAD_INBOX} keyed by team for the lead,
 * {@link Topics#TEAMMATE_INBOX} keyed by {@code <team>/<name>} for a teammate ({@link AgentMessage#key()}). The topic
 * is set per record, so one outgoing channel serves both. The returned stage completes when the broker acknowledged
 * the record, and fails with the broker's error otherwise: a caller that must not lose the message retries (the
 * message id stays the same, consumers dedupe on it).
 *
 * <p>{@link AgentPublishers} produces it over the service's {@link KafkaRecordSender} (one plain producer,
 * {@code acks=all}, idempotent); the lead makes its own over its {@link RecordSender}.
 */
public class AgentMessagePublisher {

    private final RecordSender sender;
    private final Tracing tracing;

    public AgentMessagePublisher(RecordSender sender) {
        this(sender, Tracing.NOOP);
    }

    /** Traced: each record gets a {@code publish} span and carries its W3C context in its headers ({@link KafkaTracing}). */
    public AgentMessagePublisher(RecordSender sender, Tracing tracing) {
        this.sender = Objects.requireNonNull(sender, "sender");
        this.tracing = Objects.requireNonNull(tracing, "tracing");
    }

    /** The inbox topic of agent {@code to}. */
    public static String topicFor(String to) {
        return Ids.LEAD.equals(to) ? Topics.LEAD_INBOX : Topics.TEAMMATE_INBOX;
    }

    /** Sends {@code m} to its recipient's inbox; completes on the broker's acknowledgement. */
    public CompletionStage<Void> send(AgentMessage m) {
        KafkaTracing.Publish trace = KafkaTracing.publish(tracing, topicFor(m.to()));
        String value;
        try {
            value = Json.write(m);
        } catch (RuntimeException e) {
            trace.done(e);
            return CompletableFuture.failedFuture(e);
        }
        return sender.send(topicFor(m.to()), m.key(), value, trace.headers()).whenComplete((v, t) -> trace.done(t));
    }
}
