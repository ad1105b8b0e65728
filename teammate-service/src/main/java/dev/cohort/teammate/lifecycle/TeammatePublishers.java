package dev.cohort.teammate.lifecycle;

import dev.cohort.core.protocol.Topics;
import dev.cohort.core.trace.Tracing;
import dev.cohort.host.messaging.AgentMessagePublisher;
import dev.cohort.host.messaging.KafkaEventSink;
import dev.cohort.host.messaging.KafkaRecordSender;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.List;

/**
 * The teammates' Kafka publishers (agent-host's) over the service's one plain producer ({@link KafkaRecordSender}):
 * results and {@code send_message} to the lead's or a teammate's inbox (topic per record), and events on
 * {@code cohort.events} ({@code seq = 0}, sequenced by the lead). The producer is warmed at start-up.
 */
@ApplicationScoped
public class TeammatePublishers {

    @Inject
    KafkaRecordSender sender;

    @Inject
    Tracing tracing;

    void onStart(@Observes StartupEvent ev) {
        sender.warm(List.of(Topics.EVENTS, Topics.LEAD_INBOX, Topics.TEAMMATE_INBOX));
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
