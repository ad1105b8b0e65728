package dev.cohort.lead.inbox;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.trace.Tracing;
import dev.cohort.platform.kafka.AgentMessagePublisher;
import dev.cohort.platform.kafka.RecordSender;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;

/**
 * Sends agent messages to their recipient's inbox with agent-host's {@link AgentMessagePublisher} over the service's
 * plain producer ({@link RecordSender}): {@code cohort.lead.inbox} keyed by team for the lead (a {@code control} for the
 * replica that owns the team, a message from {@code user}), {@code cohort.teammate.inbox} keyed by
 * {@code <team>/<name>} for a teammate (spawns, messages, controls). Waits for the broker's acknowledgement, so the
 * caller can say the message is durably on the topic.
 */
@ApplicationScoped
public class AgentInboxPublisher {

    /** Longest wait for the broker's acknowledgement; a broker slower than this is down for the caller. */
    private static final Duration ACK_TIMEOUT = Duration.ofSeconds(10);

    @Inject
    RecordSender sender;

    @Inject
    Tracing tracing;

    private AgentMessagePublisher publisher;

    @PostConstruct
    void init() {
        publisher = new AgentMessagePublisher(sender, tracing);
    }

    /**
     * Sends and waits for the acknowledgement.
     *
     * @throws IllegalStateException the broker refused it or did not answer within {@link #ACK_TIMEOUT}: retry with the
     *                               same message (same id; the consumers dedupe on it)
     */
    public void publish(AgentMessage message) {
        try {
            publisher.send(message).toCompletableFuture().get(ACK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending message " + message.id(), e);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new IllegalStateException("message " + message.id() + " to " + message.key() + " not sent to "
                    + AgentMessagePublisher.topicFor(message.to()) + ": " + cause, cause);
        }
    }
}
