package dev.cohort.lead.prompts;

import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.PromptRecord;
import dev.cohort.core.protocol.Topics;
import dev.cohort.core.trace.Tracing;
import dev.cohort.platform.tracing.KafkaTracing;
import io.smallrye.reactive.messaging.kafka.KafkaRecord;
import io.smallrye.reactive.messaging.kafka.OutgoingKafkaRecord;
import io.smallrye.reactive.messaging.MutinyEmitter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.apache.kafka.common.header.Header;
import org.eclipse.microprofile.reactive.messaging.Channel;

/** Produces prompts on {@code cohort.prompts}, keyed by team: the replica owning that partition runs the turn. */
@ApplicationScoped
public class PromptPublisher {

    @Inject
    @Channel("prompts-out")
    MutinyEmitter<String> emitter;

    @Inject
    Tracing tracing;

    /**
     * Sends and waits for the acknowledgement, so a 202 means the prompt is durably queued. The record carries the
     * W3C context of its {@code publish} span: the lead's turn for it continues the HTTP request's trace.
     */
    public void publish(PromptRecord prompt) {
        KafkaTracing.Publish trace = KafkaTracing.publish(tracing,
                Topics.PROMPTS);
        Throwable failed = null;
        try {
            OutgoingKafkaRecord<String, String> record = KafkaRecord.of(prompt.team(), Json.write(prompt));
            for (Header h : trace.headers()) {
                record = record.withHeader(h.key(), h.value());
            }
            emitter.sendMessage(record).await().atMost(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            failed = e;
            throw e;
        } finally {
            trace.done(failed);
        }
    }
}
