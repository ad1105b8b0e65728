package dev.cohort.lead.messaging;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.Topics;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.kafka.KafkaRecord;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.reactive.messaging.Channel;

/**
 * Produces agent messages for a team's lead on {@code cohort.lead.inbox}, keyed by team: the replica that owns that
 * partition hosts the lead and acts on them (e.g. a {@code control} interrupt sent from whichever replica the HTTP
 * request landed on).
 */
@ApplicationScoped
public class LeadInboxPublisher {

    /** Longest wait for the broker's acknowledgement; a broker slower than this is down for the caller. */
    private static final Duration ACK_TIMEOUT = Duration.ofSeconds(10);

    @Inject
    @Channel("lead-inbox-out")
    MutinyEmitter<String> emitter;

    /** Sends and waits for the acknowledgement, so the caller can say the message is durably on the topic. */
    public void publish(AgentMessage message) {
        if (!Ids.LEAD.equals(message.to())) {
            throw new IllegalArgumentException("a message on " + Topics.LEAD_INBOX + " must be addressed to the lead, not \""
                    + message.to() + "\"");
        }
        emitter.sendMessage(KafkaRecord.of(message.key(), Json.write(message))).await().atMost(ACK_TIMEOUT);
    }
}
