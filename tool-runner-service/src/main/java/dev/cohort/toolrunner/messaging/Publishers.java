package dev.cohort.toolrunner.messaging;

import dev.cohort.host.messaging.AgentMessagePublisher;
import dev.cohort.host.messaging.KafkaEventSink;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;

/**
 * The runner's Kafka publishers, agent-host's, over the channels of {@code application.properties}: {@code inbox-out}
 * (background_done to the owning agent's inbox; topic per record) and {@code events-out} ({@code cohort.events},
 * {@code seq = 0}).
 */
@ApplicationScoped
public class Publishers {

    @Inject
    @Channel("inbox-out")
    Emitter<String> inbox;

    @Inject
    @Channel("events-out")
    Emitter<String> events;

    @Inject
    dev.cohort.core.trace.Tracing tracing;

    @Produces
    @Singleton
    AgentMessagePublisher agentMessages() {
        return new AgentMessagePublisher(inbox, tracing);
    }

    @Produces
    @Singleton
    KafkaEventSink eventSink() {
        return new KafkaEventSink(events);
    }
}
