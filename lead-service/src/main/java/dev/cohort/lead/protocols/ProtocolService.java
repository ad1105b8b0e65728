package dev.cohort.lead.protocols;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.payload.MessageMetadata;
import dev.cohort.core.protocol.payload.PlanApprovalRequest;
import dev.cohort.core.protocol.payload.PlanApprovalResponse;
import dev.cohort.core.protocol.payload.ShutdownRequest;
import dev.cohort.core.protocol.payload.ShutdownResponse;
import dev.cohort.core.protocol.payload.TeammatePhase;
import dev.cohort.core.protocol.ProtocolException;
import dev.cohort.lead.events.EventService;
import dev.cohort.lead.events.RosterRepository;
import dev.cohort.lead.events.RosterRepository.RosterRow;
import dev.cohort.lead.inbox.AgentInboxPublisher;
import dev.cohort.lead.protocols.ProtocolRepository.ProtocolRow;
import dev.cohort.lead.tasks.TaskRepository;
import dev.cohort.lead.tasks.TaskRow;
import io.quarkus.logging.Log;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The lead's side of the team protocols. Requests live in {@code lead.protocols}; every
 * transition is one conditional statement ({@link ProtocolRepository#decide}) and a {@code protocol_updated} event.
 *
 * <ul>
 * <li>shutdown: {@link #requestShutdown} records the request (deadline {@code cohort.protocols.shutdown-timeout}) and
 * sends {@code shutdown_request}; the teammate's {@code shutdown_response} arrives on the lead's inbox
 * ({@link #onInbox}) and is recorded; on approval, or when the sweep expires the request, the lead releases every
 * task the teammate holds; an expired request also sends a forced {@code shutdown_request} (the teammate's host stops
 * it without asking anyone) and marks the roster row shut down, so a dead or unhosted teammate never leaves the lead
 * waiting;</li>
 * <li>plan approval: a teammate's {@code plan_approval_request} is recorded when it arrives; {@link #reviewPlan} (the
 * lead's {@code review_plan}, or a person over HTTP) decides it and sends {@code plan_approval_response} to the plan's
 * sender, whose host opens or keeps its plan gate; {@link #requestPlan} closes a teammate's gate and asks for one.</li>
 * </ul>
 */
@ApplicationScoped
public class ProtocolService {

    /** Metadata key of a forced {@code shutdown_request} (sent when the request expired): the host stops at once. */
    public static final String FORCE = "force";
    /** Metadata key of {@code request_plan}'s message: the teammate's host closes its plan gate on it. */
    public static final String PLAN_REQUIRED = "planRequired";

    @Inject
    ProtocolRepository repo;

    @Inject
    RosterRepository roster;

    @Inject
    AgentInboxPublisher publisher;

    @Inject
    EventService events;

    @Inject
    TaskRepository tasks;

    @Inject
    ProtocolConfig config;

    private ScheduledExecutorService sweeper;

    /** A request refused: {@code rule} names why, {@code status} is the HTTP status the API answers with. */
    public static final class Refusal extends RuntimeException {
        private final String rule;
        private final int status;

        public Refusal(int status, String rule, String message) {
            super(message, null, false, false);
            this.rule = rule;
            this.status = status;
        }

        public String rule() {
            return rule;
        }

        public int status() {
            return status;
        }
    }

    // ---- shutdown

    /**
     * Asks {@code teammate} to shut down (request id {@code requestId}, derived from the tool call so a resumed turn
     * repeats the same request: its message is sent again with the same id and the teammate's inbox dedupes it).
     */
    public ProtocolRow requestShutdown(String team, String requestId, String teammate, String reason) {
        ProtocolRow existing = repo.find(team, requestId).orElse(null);
        if (existing == null) {
            liveTeammate(team, teammate);
            repo.pendingFor(team, ProtocolRepository.SHUTDOWN, teammate).ifPresent(p -> {
                throw new Refusal(409, "protocol:already-pending", "a shutdown request to " + teammate
                        + " is already pending (req: " + p.id() + ", deadline " + p.deadline() + ")");
            });
            ObjectNode payload = Json.MAPPER.createObjectNode();
            if (reason != null) {
                payload.put("reason", reason);
            }
            repo.insert(requestId, team, ProtocolRepository.SHUTDOWN, Ids.LEAD, teammate, payload,
                    config.shutdownTimeout());
        }
        ProtocolRow row = repo.find(team, requestId).orElseThrow();
        if (existing == null) {
            // recorded before the request goes out, so the stream never shows the answer ahead of the request
            updated(row);
            Log.infof("team=%s agent=lead shutdown_request %s -> %s (deadline %s)", team, requestId, teammate, row.deadline());
        }
        publisher.publish(AgentMessage.of(requestId, team, Ids.LEAD, row.target(),
                "Please shut down gracefully" + (reason == null ? "." : ": " + reason),
                new ShutdownRequest(requestId, reason), Instant.now()));
        return row;
    }

    /**
     * A teammate's {@code shutdown_response}: recorded by one conditional statement (type shutdown, pending, answered by
     * its target); approved → the teammate's tasks go back to pending.
     */
    public ProtocolRow answerShutdown(String team, String from, String requestId, boolean approve, String reason) {
        ProtocolRow row = repo.decide(team, requestId, ProtocolRepository.SHUTDOWN, from,
                approve ? ProtocolRepository.APPROVED : ProtocolRepository.REJECTED, reason, from)
                .orElseThrow(() -> refusal(team, requestId, ProtocolRepository.SHUTDOWN, from));
        if (approve) {
            release(team, row.target(), "its shutdown was approved");
        }
        updated(row);
        return row;
    }

    // ---- plan approval

    /** Closes {@code teammate}'s plan gate and asks it for a plan (a {@code message} its host reads first). */
    public void requestPlan(String team, String messageId, String teammate, String content) {
        liveTeammate(team, teammate);
        String text = "The lead asks you for a plan before you change anything: until a plan you submit with submit_plan"
                + " is approved, your file and shell changes are refused (read-only tools still work)."
                + (content == null || content.isBlank() ? "" : "\n\n" + content);
        publisher.publish(new AgentMessage(messageId, team, Ids.LEAD, teammate, MessageType.MESSAGE, text,
                Map.of(PLAN_REQUIRED, true), Instant.now()));
    }

    /** A teammate's {@code plan_approval_request}: a pending request to the lead (a redelivered one changes nothing). */
    public void planSubmitted(AgentMessage m) {
        PlanApprovalRequest meta = m.metadataAs(PlanApprovalRequest.class);
        if (meta.requestId() == null || meta.requestId().isBlank()) {
            throw new ProtocolException("plan_approval_request " + m.id() + " has no \"requestId\"");
        }
        ObjectNode payload = Json.MAPPER.createObjectNode().put("plan", m.content() == null ? "" : m.content());
        if (repo.insert(meta.requestId(), m.team(), ProtocolRepository.PLAN_APPROVAL, m.from(), Ids.LEAD, payload,
                config.planTimeout())) {
            updated(repo.find(m.team(), meta.requestId()).orElseThrow());
            Log.infof("team=%s plan_approval_request %s from %s recorded", m.team(), meta.requestId(), m.from());
        }
    }

    /**
     * Decides a plan approval (the lead's {@code review_plan}, or a person: {@code decidedBy} says who) by one
     * conditional statement, then sends {@code plan_approval_response} to the plan's sender.
     */
    public ProtocolRow reviewPlan(String team, String requestId, boolean approve, String feedback, String decidedBy) {
        ProtocolRow row = repo.decide(team, requestId, ProtocolRepository.PLAN_APPROVAL, Ids.LEAD,
                approve ? ProtocolRepository.APPROVED : ProtocolRepository.REJECTED, feedback, decidedBy)
                .orElseThrow(() -> refusal(team, requestId, ProtocolRepository.PLAN_APPROVAL, Ids.LEAD));
        updated(row);
        sendPlanResponse(row, approve, feedback);
        return row;
    }

    private void sendPlanResponse(ProtocolRow row, boolean approve, String feedback) {
        String text = approve ? "Plan approved: you may now change files and run commands."
                : "Plan rejected: your changes stay refused; revise the plan and submit it again with submit_plan.";
        if (feedback != null && !feedback.isBlank()) {
            text += "\nFeedback: " + feedback;
        }
        publisher.publish(AgentMessage.of(derived("plan-response/" + row.id()), row.team(), Ids.LEAD, row.sender(), text,
                new PlanApprovalResponse(row.id(), approve, feedback), Instant.now()));
    }

    // ---- the lead's inbox

    /**
     * Routes a protocol message that arrived on the lead's inbox before the lead's model sees it (seed §3.8, made
     * durable): a {@code shutdown_response} is recorded, a {@code plan_approval_request} becomes a pending request. A
     * refused answer (wrong type, wrong agent, already decided, unknown id) changes nothing and is logged; the lead's
     * injection line shows the request's state. Other types are not protocol messages: nothing to do.
     */
    public void onInbox(AgentMessage m) {
        try {
            if (m.type() == MessageType.SHUTDOWN_RESPONSE) {
                ShutdownResponse r = m.metadataAs(ShutdownResponse.class);
                answerShutdown(m.team(), m.from(), r.requestId(), r.approve(), r.reason());
            } else if (m.type() == MessageType.PLAN_APPROVAL_REQUEST) {
                planSubmitted(m);
            } else if (m.type() == MessageType.PLAN_APPROVAL_RESPONSE) {
                throw new Refusal(409, "protocol:wrong-type", "a plan_approval_response is the lead's answer; the lead"
                        + " does not receive one (from " + m.from() + ")");
            }
        } catch (Refusal | ProtocolException e) {
            Log.warnf("team=%s message=%s %s from %s refused: %s", m.team(), m.id(), m.type().wire(), m.from(),
                    e.getMessage());
        }
    }

    // ---- expiry

    void onStart(@Observes StartupEvent ev) {
        long ms = Math.max(10, config.sweepInterval().toMillis());
        sweeper = Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().name("protocol-sweep").factory());
        sweeper.scheduleWithFixedDelay(() -> {
            try {
                sweep();
            } catch (RuntimeException e) {
                Log.warnf("protocol sweep failed (retried at the next interval): %s", e.toString());
            }
        }, ms, ms, TimeUnit.MILLISECONDS);
    }

    void onStop(@Observes ShutdownEvent ev) {
        if (sweeper != null) {
            sweeper.shutdownNow();
        }
    }

    /**
     * Expires every pending request past its deadline (one statement; whichever replica runs it owns the clean-up).
     * A shutdown: the teammate's tasks are released, a forced {@code shutdown_request} stops it wherever it is hosted
     * (or when it is adopted again), and the roster shows it shut down at once. A plan: its sender is told, still gated.
     */
    public List<ProtocolRow> sweep() {
        List<ProtocolRow> expired = repo.expireDue();
        for (ProtocolRow row : expired) {
            updated(row);
            if (ProtocolRepository.SHUTDOWN.equals(row.type())) {
                release(row.team(), row.target(), "its shutdown request expired");
                Map<String, Object> meta = new HashMap<>(MessageMetadata.toMap(new ShutdownRequest(row.id(),
                        "the shutdown request was not answered by its deadline")));
                meta.put(FORCE, true);
                publisher.publish(new AgentMessage(derived("force/" + row.id()), row.team(), Ids.LEAD, row.target(),
                        MessageType.SHUTDOWN_REQUEST, "Stopped: the shutdown request was not answered by its deadline.",
                        meta, Instant.now()));
                String why = "shutdown request " + row.id() + " expired: stopped by the lead";
                events.emit(row.team(), row.target(), new TeammatePhase(row.target(), TeammatePhase.SHUTDOWN, why, null,
                        null, null));
                Log.infof("team=%s agent=%s shutdown request %s expired: tasks released, stop sent", row.team(),
                        row.target(), row.id());
            } else {
                sendPlanResponse(row, false, "the plan was not reviewed by its deadline; submit it again if still needed");
            }
        }
        return expired;
    }

    // ---- parts

    private void release(String team, String agent, String why) {
        List<TaskRow> released = tasks.releaseAllOwnedBy(team, agent);
        if (!released.isEmpty()) {
            Log.infof("team=%s agent=%s %d task(s) back to pending: %s", team, agent, released.size(), why);
        }
    }

    private RosterRow liveTeammate(String team, String teammate) {
        if (teammate == null || Ids.LEAD.equals(teammate) || !Ids.isAgent(teammate)) {
            throw new Refusal(400, "arguments", "'" + teammate + "' is not a teammate name");
        }
        RosterRow mate = roster.find(team, teammate).orElseThrow(() -> new Refusal(404, "protocol:unknown-teammate",
                "no teammate '" + teammate + "' in team " + team + "; known: "
                        + String.join(", ", roster.list(team).stream().map(RosterRow::name).toList())));
        if (!mate.live()) {
            throw new Refusal(409, "protocol:not-running", teammate + " is already shut down"
                    + (mate.reason() == null ? "" : " (" + mate.reason() + ")") + ": nothing to ask");
        }
        return mate;
    }

    /** Why no row changed: the request is unknown, of another type, for another agent, or already decided. */
    Refusal refusal(String team, String id, String type, String answerer) {
        ProtocolRow r = id == null ? null : repo.find(team, id).orElse(null);
        if (r == null) {
            return new Refusal(404, "protocol:unknown-request", "unknown request id '" + id + "' in team " + team);
        }
        if (!r.type().equals(type)) {
            return new Refusal(409, "protocol:wrong-type", "request " + id + " is a " + r.type() + " request, not a "
                    + type + " request");
        }
        if (!r.target().equals(answerer)) {
            return new Refusal(409, "protocol:wrong-agent", "request " + id + " is addressed to " + r.target() + ", not "
                    + answerer);
        }
        return new Refusal(409, "protocol:already-decided", "request " + id + " is already " + r.status());
    }

    private void updated(ProtocolRow row) {
        events.emit(row.team(), Ids.LEAD, EventType.PROTOCOL_UPDATED, view(row));
    }

    /** A request as the API and the {@code protocol_updated} event show it. */
    public static JsonNode view(ProtocolRow r) {
        ObjectNode n = Json.MAPPER.createObjectNode();
        n.put("id", r.id()).put("type", r.type()).put("sender", r.sender()).put("target", r.target())
                .put("status", r.status());
        n.set("payload", r.payload());
        n.put("feedback", r.feedback()).put("decidedBy", r.decidedBy());
        n.put("createdAt", str(r.createdAt())).put("decidedAt", str(r.decidedAt())).put("deadline", str(r.deadline()));
        return n;
    }

    private static String str(Instant i) {
        return i == null ? null : i.toString();
    }

    static String derived(String basis) {
        return UUID.nameUUIDFromBytes(basis.getBytes(StandardCharsets.UTF_8)).toString();
    }
}
