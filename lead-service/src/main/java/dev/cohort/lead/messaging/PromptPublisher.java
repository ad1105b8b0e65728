package dev.cohort.lead.messaging;

import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.PromptRecord;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.kafka.KafkaRecord;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.reactive.messaging.Channel;

/** Produces prompts on {@code cohort.prompts}, keyed by team: the replica owning that partition runs the turn. */
@ApplicationScoped
public class PromptPublisher {

    @Inject
    @Channel("prompts-out")
    MutinyEmitter<String> emitter;

    /** Sends and waits for the acknowledgement, so a 202 means the prompt is durably queued. */
    public void publish(PromptRecord prompt) {
        emitter.sendMessage(KafkaRecord.of(prompt.team(), Json.write(prompt))).await().atMost(Duration.ofSeconds(10));
    }
}
