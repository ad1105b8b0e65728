package dev.cohort.lead.messaging;

import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.Json;
import io.smallrye.reactive.messaging.kafka.KafkaRecord;
import io.smallrye.reactive.messaging.MutinyEmitter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.reactive.messaging.Channel;

/** Publishes sequenced events on {@code cohort.events}, keyed by team (so one team's events stay in order). */
@ApplicationScoped
public class EventPublisher {

    @Inject
    @Channel("events-out")
    MutinyEmitter<String> emitter;

    /** Sends and waits for the broker's acknowledgement (bounded, so a broker outage cannot hang a turn). */
    public void publish(Event event) {
        emitter.sendMessage(KafkaRecord.of(event.team(), Json.write(event))).await().atMost(Duration.ofSeconds(10));
    }
}
