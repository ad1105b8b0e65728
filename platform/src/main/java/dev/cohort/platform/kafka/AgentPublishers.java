package dev.cohort.platform.kafka;

import dev.cohort.core.protocol.Topics;
import dev.cohort.core.trace.Tracing;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.List;

/**
 * A service's agent-message and event publishers over its one plain producer ({@link KafkaRecordSender}): messages to
 * the lead's or a teammate's inbox (topic per record) and fire-and-forget events on {@code cohort.events}
 * ({@code seq = 0}, sequenced by the lead). Made when a bean of the service first needs one; making one starts
 * fetching the topics' metadata in the background, so the first record does not wait for it. A service that injects
 * neither (the scheduler) gets no producer from here.
 */
@ApplicationScoped
public class AgentPublishers {

    /** The topics the publishers write to. */
    static final List<String> TOPICS = List.of(Topics.EVENTS, Topics.LEAD_INBOX, Topics.TEAMMATE_INBOX);

    @Inject
    KafkaRecordSender sender;

    @Inject
    Tracing tracing;

    @Produces
    @Singleton
    AgentMessagePublisher agentMessages() {
        sender.warm(TOPICS);
        return new AgentMessagePublisher(sender, tracing);
    }

    @Produces
    @Singleton
    KafkaEventSink eventSink() {
        sender.warm(TOPICS);
        return new KafkaEventSink(sender);
    }
}
