package dev.cohort.teammate.messaging;

import dev.cohort.host.messaging.AgentMessagePublisher;
import dev.cohort.host.messaging.KafkaEventSink;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;

/**
 * The teammates' Kafka publishers (agent-host's) over the channels of {@code application.properties}:
 * {@code agent-messages-out} (results and {@code send_message}: the lead's or a teammate's inbox, topic per record)
 * and {@code events-out} ({@code cohort.events}, {@code seq = 0}, sequenced by the lead).
 */
@ApplicationScoped
public class TeammatePublishers {

    @Inject
    @Channel("agent-messages-out")
    Emitter<String> messages;

    @Inject
    @Channel("events-out")
    Emitter<String> events;

    @Inject
    dev.cohort.core.trace.Tracing tracing;

    @Produces
    @Singleton
    AgentMessagePublisher agentMessages() {
        return new AgentMessagePublisher(messages, tracing);
    }

    @Produces
    @Singleton
    KafkaEventSink eventSink() {
        return new KafkaEventSink(events);
    }
}
