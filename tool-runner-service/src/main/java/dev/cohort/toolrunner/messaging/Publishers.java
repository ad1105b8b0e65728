package dev.cohort.toolrunner.messaging;

import dev.cohort.host.messaging.AgentMessagePublisher;
import dev.cohort.host.messaging.KafkaEventSink;
import dev.cohort.host.messaging.KafkaRecordSender;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/**
 * The runner's Kafka publishers, agent-host's, over the service's one plain producer ({@link KafkaRecordSender}):
 * {@code background_done} to the owning agent's inbox (topic per record) and events on {@code cohort.events}
 * ({@code seq = 0}).
 */
@ApplicationScoped
public class Publishers {

    @Inject
    KafkaRecordSender sender;

    @Inject
    dev.cohort.core.trace.Tracing tracing;

    void onStart(@jakarta.enterprise.event.Observes io.quarkus.runtime.StartupEvent ev) {
        sender.warm(java.util.List.of(dev.cohort.core.protocol.Topics.EVENTS, dev.cohort.core.protocol.Topics.LEAD_INBOX,
                dev.cohort.core.protocol.Topics.TEAMMATE_INBOX));
    }

    @Produces
    @Singleton
    AgentMessagePublisher agentMessages() {
        return new AgentMessagePublisher(sender, tracing);
    }

    @Produces
    @Singleton
    KafkaEventSink eventSink() {
        return new KafkaEventSink(sender);
    }
}
