package dev.cohort.teammate.inbox;

import dev.cohort.core.host.AgentKey;
import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.payload.Control;
import dev.cohort.core.protocol.ProtocolException;
import dev.cohort.core.trace.Tracing;
import dev.cohort.host.store.PgInbox;
import dev.cohort.host.store.StoreRetry;
import dev.cohort.platform.tracing.KafkaTracing;
import dev.cohort.teammate.agent.SpawnHandler;
import dev.cohort.teammate.agent.TeammateHost;
import dev.cohort.teammate.engine.TeammateEngine;
import dev.cohort.teammate.lifecycle.TeammateRepository;
import dev.cohort.teammate.lifecycle.TeammateRepository.TeammateRow;
import dev.cohort.teammate.protocols.TeammateProtocols;
import io.opentelemetry.context.Context;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.Arrays;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Handles the records of {@code cohort.teammate.inbox} for the partitions this replica owns ({@link TeammateInboxPoller}
 * polls them). Each record is parsed and checked (its key
 * must be {@code <team>/<to>}); a record without an id gets its Kafka coordinates ({@code kafka:<topic>-<partition>-
 * <offset>}), so a redelivery of the same record is a no-op. {@code spawn} → {@link SpawnHandler}; {@code control} →
 * the host (interrupt, approval answered), never stored; anything else is stored once in the teammate's inbox and
 * wakes it (a shut-down teammate keeps it as received, for its restart). A record that cannot be understood (malformed
 * JSON, a missing field, an unknown type, a wrong key, an unknown teammate) throws: {@link TeammateInboxPoller} sends it to
 * {@code cohort.dlq} with the error in the {@code dead-letter-reason} header, and the next record is processed. The
 * method is blocking and the record's offset is committed after it returned, so a record is stored before its offset
 * is.
 */
@ApplicationScoped
public class InboxConsumer {

    @Inject
    PgInbox inbox;

    @Inject
    TeammateRepository teammates;

    @Inject
    SpawnHandler spawns;

    @Inject
    TeammateHost host;

    @Inject
    TeammateProtocols protocols;

    @Inject
    TeammateEngine engine;

    @Inject
    Tracing tracing;

    /** Handles one record, on {@link TeammateInboxPoller}'s thread; throws for a record to send to the dead-letter topic. */
    public void onRecord(ConsumerRecord<String, String> record) {
        // the record's trace context: its consumer span is the parent of the turn the message starts
        KafkaTracing.handle(tracing, record, this::handle);
    }

    private void handle(ConsumerRecord<String, String> record) {
        AgentMessage m = read(record);
        AgentKey key = new AgentKey(m.team(), m.to());
        // the database briefly away is not a bad record (a spawn sent to the DLQ would lose the teammate): retried in
        // place, the offset not committed meanwhile; redelivery-safe handlers (ids, insert-if-new)
        StoreRetry.run("message " + m.id() + " to " + key, () -> {
            if (m.type() != MessageType.CONTROL && m.type() != MessageType.TASK_AVAILABLE) {
                tracing.ingress(key.team(), key.name(), Context.current());
            }
            switch (m.type()) {
                case SPAWN -> spawns.onSpawn(m);
                case CONTROL -> onControl(key, m);
                case TASK_AVAILABLE -> onTaskAvailable(key, m);
                default -> onMessage(key, m);
            }
        });
    }

    /** The checked message, with an id and a sender. */
    static AgentMessage read(ConsumerRecord<String, String> record) {
        if (record.value() == null) {
            throw new ProtocolException("record " + coordinates(record) + " has no value");
        }
        AgentMessage m = AgentMessage.parse(record.value());
        if (Ids.LEAD.equals(m.to()) || !Ids.isAgent(m.to())) {
            throw new ProtocolException("\"to\" must be a teammate name (lower case letters, digits, '_' or '-', at most 32;"
                    + " not \"lead\"), was \"" + m.to() + "\"");
        }
        if (!m.key().equals(record.key())) {
            throw new ProtocolException("record key \"" + record.key() + "\" does not match the message's <team>/<to> \""
                    + m.key() + "\"");
        }
        String id = m.id() == null || m.id().isBlank() ? coordinates(record) : m.id();
        String from = m.from() == null || m.from().isBlank() ? "external" : m.from();
        return new AgentMessage(id, m.team(), from, m.to(), m.type(), m.content(), m.metadata(),
                m.ts() == null ? Instant.now() : m.ts());
    }

    static String coordinates(ConsumerRecord<String, String> record) {
        return "kafka:" + record.topic() + "-" + record.partition() + "-" + record.offset();
    }

    private void onMessage(AgentKey key, AgentMessage m) {
        if (m.type() == MessageType.MESSAGE && (m.content() == null || m.content().isBlank())) {
            throw new ProtocolException("message " + m.id() + " to " + key + " has no \"content\"");
        }
        if (m.type() == MessageType.BACKGROUND_DONE) {
            // a background job of the team wrote what it wrote: the next turn reads skills and hook settings again
            engine.workspaceReads().invalidate(key.team());
        }
        // the teammate's row read and the insert in one statement: nothing is stored for an unknown teammate
        PgInbox.Listed stored = inbox.insertIfListed(m, "teammate.teammates", "lifecycle")
                .orElseThrow(() -> new ProtocolException("unknown teammate " + key));
        if (!stored.inserted()) {
            Log.infof("team=%s agent=%s message=%s seen before: skipped (redelivery)", key.team(), key.name(), m.id());
        }
        if (TeammateRepository.ACTIVE.equals(stored.status())) {
            host.wake(key);
            if (m.type() == MessageType.SHUTDOWN_REQUEST) {
                protocols.arrived(key, m); // a turn in progress (running or parked) ends for it
            }
        } else if (m.type() == MessageType.SHUTDOWN_REQUEST) {
            // already stopped: nothing to answer, and a restart must not be stopped by it
            inbox.markRouted(key, m.id());
            Log.infof("team=%s agent=%s shutdown_request %s dropped: the teammate is already shut down", key.team(),
                    key.name(), m.id());
        } else {
            Log.infof("team=%s agent=%s message=%s kept for the teammate's restart (it is shut down)", key.team(),
                    key.name(), m.id());
        }
    }

    /**
     * A task became claimable. Not stored (it is a hint, not an input): an idle teammate is woken and asks
     * claim-next in its next step; a working one claims when its turn ends anyway.
     */
    private void onTaskAvailable(AgentKey key, AgentMessage m) {
        teammates.find(key.team(), key.name()).filter(TeammateRow::active).ifPresent(r -> host.nudge(key));
    }

    /** A command for the teammate's host, acted on by this replica (it owns the partition); never stored. */
    private void onControl(AgentKey key, AgentMessage m) {
        Control c = m.metadataAs(Control.class);
        if (c.action() == null) {
            throw new ProtocolException("control message " + m.id() + " has no \"action\"; known: "
                    + Arrays.stream(Control.Action.values()).map(Control.Action::wire).toList());
        }
        switch (c.action()) {
            case INTERRUPT -> {
                String current = teammates.turnId(key.team(), key.name()).orElse(null);
                if (c.turnId() != null && !c.turnId().equals(current)) {
                    Log.infof("team=%s agent=%s message=%s interrupt of turn %s ignored: the teammate is %s now", key.team(),
                            key.name(), m.id(), c.turnId(), current == null ? "idle" : "on turn " + current);
                } else if (host.interrupt(key)) {
                    Log.infof("team=%s agent=%s message=%s turn interrupted (requested by %s)", key.team(), key.name(),
                            m.id(), m.from());
                } else {
                    Log.infof("team=%s agent=%s message=%s interrupt: no turn running or parked here", key.team(),
                            key.name(), m.id());
                }
            }
            case APPROVAL_RESOLVED -> {
                if (host.wakeIfParked(key)) {
                    Log.infof("team=%s agent=%s approval %s answered: parked turn resumed", key.team(), key.name(),
                            c.approvalId());
                }
            }
        }
    }
}
