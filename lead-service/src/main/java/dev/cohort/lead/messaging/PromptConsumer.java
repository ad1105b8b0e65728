package dev.cohort.lead.messaging;

import dev.cohort.core.protocol.PromptRecord;
import dev.cohort.core.protocol.Topics;
import dev.cohort.lead.service.LeadTurnService;
import io.quarkus.logging.Log;
import io.smallrye.common.annotation.Blocking;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * Reads {@code cohort.prompts} for the teams whose partitions this replica owns. A record that cannot be
 * understood (malformed JSON, no team, unknown team) throws, and the channel's failure strategy sends it to
 * {@code cohort.dlq} with the error in the {@code dead-letter-reason} header; the next record is processed.
 */
@ApplicationScoped
public class PromptConsumer {

    @Inject
    LeadTurnService turns;

    @Incoming("prompts-in")
    @Blocking
    public void onPrompt(ConsumerRecord<String, String> record) {
        PromptRecord prompt = PromptRecord.fromRecord(record.key(), record.value())
                // a record without an id gets its Kafka coordinates: redelivery of the same record is then a no-op
                .withIdIfAbsent("kafka:" + Topics.PROMPTS + "-" + record.partition() + "-" + record.offset());
        Log.debugf("team=%s prompt=%s source=%s received", prompt.team(), prompt.id(), prompt.source());
        turns.handle(prompt);
    }
}
