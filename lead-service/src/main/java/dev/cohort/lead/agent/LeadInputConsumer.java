package dev.cohort.lead.agent;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.payload.Control;
import dev.cohort.core.protocol.PromptRecord;
import dev.cohort.core.protocol.ProtocolException;
import dev.cohort.core.protocol.Topics;
import dev.cohort.core.trace.Tracing;
import dev.cohort.host.store.StoreRetry;
import dev.cohort.lead.inbox.InboxRepository;
import dev.cohort.lead.prompts.PromptRepository;
import dev.cohort.lead.protocols.ProtocolService;
import dev.cohort.lead.teams.AgentRepository;
import dev.cohort.lead.teams.TeamRepository;
import dev.cohort.platform.tracing.KafkaTracing;
import io.opentelemetry.context.Context;
import io.quarkus.logging.Log;
import io.smallrye.common.annotation.Blocking;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Arrays;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * Reads {@code cohort.prompts} and {@code cohort.lead.inbox} for the teams whose partitions this replica owns,
 * queues each input durably in the {@code lead} schema (a redelivered record is a no-op: ids are the dedupe key)
 * and wakes the team's lead. A {@code control} message on the inbox is a command for the lead's host (interrupt the
 * turn), acted on here and never stored, so it never reaches the model. A record that cannot be understood (malformed JSON, no team, unknown team or type)
 * throws, and the channel's failure strategy sends it to {@code cohort.dlq} with the error in the
 * {@code dead-letter-reason} header; the next record is processed.
 */
@ApplicationScoped
public class LeadInputConsumer {

    @Inject
    PromptRepository prompts;

    @Inject
    InboxRepository inbox;

    @Inject
    TeamRepository teams;

    @Inject
    LeadHost host;

    @Inject
    AgentRepository agents;

    @Inject
    ProtocolService protocols;

    @Inject
    Tracing tracing;

    @Incoming("lead-in")
    @Blocking
    public void onRecord(ConsumerRecord<String, String> record) {
        // the record's trace context: its consumer span is the parent of the lead's turn for the input
        KafkaTracing.handle(tracing, record, this::handle);
    }

    private void handle(ConsumerRecord<String, String> record) {
        // the database briefly away is not a bad record: retried in place, the offset not committed meanwhile
        StoreRetry.run("record " + record.topic() + "-" + record.partition() + "-" + record.offset(),
                () -> {
                    if (Topics.LEAD_INBOX.equals(record.topic())) {
                        onInbox(record);
                    } else {
                        onPrompt(record);
                    }
                });
    }

    private void onPrompt(ConsumerRecord<String, String> record) {
        PromptRecord prompt = PromptRecord.fromRecord(record.key(), record.value())
                // a record without an id gets its Kafka coordinates: redelivery of the same record is then a no-op
                .withIdIfAbsent("kafka:" + record.topic() + "-" + record.partition() + "-" + record.offset());
        if (!teams.exists(prompt.team())) {
            throw new ProtocolException("unknown team \"" + prompt.team() + "\"");
        }
        if (prompts.insertIfNew(prompt.team(), prompt.id(), prompt.text(), prompt.source())) {
            Log.debugf("team=%s prompt=%s source=%s queued", prompt.team(), prompt.id(), prompt.source());
        } else {
            Log.infof("team=%s prompt=%s seen before: skipped (redelivery)", prompt.team(), prompt.id());
        }
        tracing.ingress(prompt.team(), Ids.LEAD, Context.current());
        host.wake(prompt.team());
    }

    private void onInbox(ConsumerRecord<String, String> record) {
        AgentMessage m = AgentMessage.parse(record.value());
        if (!Ids.LEAD.equals(m.to())) {
            throw new ProtocolException("message on " + Topics.LEAD_INBOX + " is addressed to \"" + m.to() + "\", not the lead");
        }
        if (!teams.exists(m.team())) {
            throw new ProtocolException("unknown team \"" + m.team() + "\"");
        }
        if (m.type() == MessageType.CONTROL) {
            onControl(m);
            return;
        }
        // protocol answers are recorded before the lead's model sees them (a redelivery is refused, logged)
        protocols.onInbox(m);
        if (inbox.insertIfNew(m)) {
            Log.debugf("team=%s message=%s type=%s from=%s queued for the lead", m.team(), m.id(), m.type().wire(), m.from());
        }
        tracing.ingress(m.team(), Ids.LEAD, Context.current());
        host.wake(m.team());
    }

    /**
     * A command for the host of the lead, which this replica hosts (it owns the team's partition). A redelivered
     * command is harmless: an interrupt names the turn its sender saw, and a lead on another turn by then ignores it.
     */
    private void onControl(AgentMessage m) {
        Control c = m.metadataAs(Control.class);
        if (c.action() == null) {
            throw new ProtocolException("control message " + m.id() + " has no \"action\"; known: "
                    + Arrays.stream(Control.Action.values()).map(Control.Action::wire).toList());
        }
        switch (c.action()) {
            case INTERRUPT -> interrupt(m, c);
            case APPROVAL_RESOLVED -> {
                if (host.wakeIfParked(m.team())) {
                    Log.infof("team=%s agent=lead approval %s answered on another replica: parked turn resumed", m.team(),
                            c.approvalId());
                }
            }
        }
    }

    private void interrupt(AgentMessage m, Control c) {
        if (c.turnId() != null) {
            String current = agents.find(m.team(), Ids.LEAD).map(AgentRepository.AgentRow::turnId).orElse(null);
            if (!c.turnId().equals(current)) {
                Log.infof("team=%s agent=lead message=%s interrupt of turn %s ignored: the lead is %s now (a late or "
                        + "redelivered request)", m.team(), m.id(), c.turnId(), current == null ? "idle" : "on turn " + current);
                return;
            }
        }
        if (host.interrupt(m.team())) {
            Log.infof("team=%s agent=lead message=%s turn interrupted (requested by %s)", m.team(), m.id(), m.from());
        } else {
            Log.infof("team=%s agent=lead message=%s interrupt: no turn running or parked here, nothing to do", m.team(), m.id());
        }
    }
}
