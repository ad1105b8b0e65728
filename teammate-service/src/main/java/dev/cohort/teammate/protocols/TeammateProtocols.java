package dev.cohort.teammate.protocols;

import dev.cohort.core.engine.hooks.PreToolUseHook;
import dev.cohort.core.engine.permission.PermissionDecision;
import dev.cohort.core.engine.permission.PermissionGate;
import dev.cohort.core.engine.permission.PermissionMode;
import dev.cohort.core.engine.permission.PermissionPolicy;
import dev.cohort.core.engine.StopReason;
import dev.cohort.core.engine.TurnResult;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.payload.MessageMetadata;
import dev.cohort.core.protocol.payload.PlanApprovalResponse;
import dev.cohort.core.protocol.payload.ShutdownRequest;
import dev.cohort.core.protocol.payload.ShutdownResponse;
import dev.cohort.core.protocol.payload.TeammateResult;
import dev.cohort.core.protocol.ProtocolException;
import dev.cohort.core.shell.CommandRules;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.host.store.PgInbox;
import dev.cohort.platform.kafka.AgentMessagePublisher;
import dev.cohort.teammate.engine.TeammateEngine;
import dev.cohort.teammate.lifecycle.TeammateEvents;
import dev.cohort.teammate.lifecycle.TeammateLifecycle.Phase;
import dev.cohort.teammate.lifecycle.TeammateRepository;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The teammate host's side of the team protocols; {@link TeammateProgram} calls in at three
 * points and this class does the rest:
 *
 * <ul>
 * <li>{@link #beforeTurn} (no turn in progress, inbox items pending): a {@code plan_approval_response} from the lead
 * opens or keeps the plan gate and a {@code request_plan} message closes it (the items are then injected as usual);
 * a {@code shutdown_request} is answered at once, by the host, without a model call: {@code shutdown_response}
 * (approve) and the final {@code result} (status {@code shutdown}) to the lead, the teammate SHUTDOWN;</li>
 * <li>{@link #drain} (a turn is running, at its step boundary): the same gate changes; a {@code shutdown_request} is
 * not injected: the turn is cancelled there (no further model call) and {@link #stopped} answers once it ended;</li>
 * <li>{@link #planGate}: the hook that refuses mutating calls while the gate is closed, deciding with the permission
 * gate's own plan-mode classification ({@link PermissionGate} in {@link PermissionMode#PLAN}), so there is one list
 * of what mutates.</li>
 * </ul>
 *
 * A forced {@code shutdown_request} ({@code metadata.force}, sent by the lead when the request expired) stops the
 * teammate the same way without an answer (the lead has already given up and released its tasks). A shutdown request
 * older than the spawn that (re)started the teammate is stale and dropped. Releasing the teammate's tasks is the
 * lead's, when it records the answer (contract §2).
 */
@ApplicationScoped
public class TeammateProtocols {

    /** The model-visible refusal of a mutating call behind a closed plan gate. */
    public static final String GATE_REFUSAL = "plan approval required — call submit_plan";
    /** Metadata key of a forced shutdown request (lead-service's {@code ProtocolService.FORCE}). */
    static final String FORCE = "force";
    /** Metadata key of request_plan's message (lead-service's {@code ProtocolService.PLAN_REQUIRED}). */
    static final String PLAN_REQUIRED = "planRequired";
    /** How long sending an answer waits for the broker. */
    static final long ACK_SECONDS = 30;

    @Inject
    PgInbox inbox;

    @Inject
    TeammateRepository teammates;

    @Inject
    PlanGateRepository gates;

    @Inject
    AgentMessagePublisher publisher;

    @Inject
    TeammateEvents events;

    @Inject
    TeammateEngine engine;

    @Inject
    RunningTurns host;

    /** Teammates whose running turn was cancelled at a step boundary for this shutdown request (its inbox row). */
    private final ConcurrentHashMap<AgentKey, PgInbox.Row> stopping = new ConcurrentHashMap<>();

    /**
     * Before a turn on {@code pending}: the gate changes; a live shutdown request is answered and true returned (the
     * teammate is SHUTDOWN: the caller parks it instead of running a turn).
     */
    public boolean beforeTurn(AgentKey key, List<PgInbox.Row> pending) {
        PgInbox.Row shutdown = gateAndShutdown(key, pending);
        if (shutdown == null) {
            return false;
        }
        shutDown(key, shutdown, null);
        return true;
    }

    /**
     * At a running turn's step boundary: the gate changes; a shutdown request is held back from the model and the
     * turn cancelled here (it ends without another model call; {@link #stopped} answers). Returns what to inject.
     */
    public List<PgInbox.Row> drain(AgentKey key, List<PgInbox.Row> rows) {
        PgInbox.Row shutdown = gateAndShutdown(key, rows);
        if (shutdown == null) {
            return rows;
        }
        stopping.put(key, shutdown);
        host.interrupt(key);
        Log.infof("team=%s agent=%s shutdown_request %s seen at a step boundary: ending the turn", key.team(), key.name(),
                shutdown.id());
        List<PgInbox.Row> rest = new ArrayList<>(rows);
        rest.removeIf(r -> MessageType.SHUTDOWN_REQUEST.wire().equals(r.type()));
        return rest;
    }

    /**
     * A shutdown request was just stored for an active teammate (the consumer, on the replica that hosts it): a turn
     * in progress is ended now — a running one at its next step (the call in flight finishes), one parked on an
     * approval at once (its waiting call answered "not run") — and {@link #stopped} answers. With no turn in progress
     * nothing is done here: {@link #beforeTurn} answers it.
     */
    public void arrived(AgentKey key, AgentMessage m) {
        PgInbox.Row row = new PgInbox.Row(m.id(), m.from(), m.type().wire(), m.content(), m.metadata());
        stopping.putIfAbsent(key, row);
        if (host.interrupt(key)) {
            Log.infof("team=%s agent=%s shutdown_request %s: ending the turn in progress", key.team(), key.name(), m.id());
        } else {
            stopping.remove(key, row);
        }
    }

    /** A turn ended: if it was cancelled for a shutdown, answer it now (true: the caller does nothing more). */
    public boolean stopped(AgentKey key, TurnResult r) {
        PgInbox.Row shutdown = stopping.remove(key);
        if (shutdown == null) {
            return false;
        }
        shutDown(key, shutdown, r);
        return true;
    }

    /** Whether the teammate's plan gate is closed (it may not mutate, so it does not claim work on its own). */
    public boolean gated(AgentKey key) {
        return gates.closed(key.team(), key.name());
    }

    /** The plan gate as a hook of the teammate's engine (read from {@code teammate.plan_gates} at every call). */
    public PreToolUseHook planGate() {
        return new PreToolUseHook() {
            @Override
            public Optional<String> beforeToolUse(ToolCall call, ToolContext ctx) {
                return refusal(call, ctx);
            }

            @Override
            public String name() {
                return "plan-gate";
            }
        };
    }

    Optional<String> refusal(ToolCall call, ToolContext ctx) {
        Tool tool = engine.engine().tools().find(call.name()).orElse(null);
        if (tool == null || !tool.isMutating()) {
            return Optional.empty();
        }
        PermissionDecision d = PermissionGate.decide(PermissionMode.PLAN, tool.name(), tool.isMutating(),
                tool.permissionSubject(call.args()), PermissionPolicy.defaults(),
                CommandRules.Workspace.relative(ctx.cwd()), false);
        if (d.kind() != PermissionDecision.Kind.DENY || !gates.closed(ctx.team(), ctx.agent())) {
            return Optional.empty();
        }
        return Optional.of(GATE_REFUSAL + ": '" + tool.name() + "' may change the workspace, and your changes wait until"
                + " the lead approves a plan of yours. Read-only tools still work: look around, then submit your plan"
                + " with submit_plan and end your turn; you are woken with the answer.");
    }

    /** The gate changes of a batch, and its live shutdown request if any (a stale one is dropped). */
    private PgInbox.Row gateAndShutdown(AgentKey key, List<PgInbox.Row> rows) {
        PgInbox.Row shutdown = null;
        for (PgInbox.Row r : rows) {
            String type = r.type();
            if (MessageType.SPAWN.wire().equals(type) && shutdown != null) {
                // a request older than the spawn that restarted the teammate was meant for its previous run
                Log.infof("team=%s agent=%s shutdown_request %s predates a restart: dropped", key.team(), key.name(),
                        shutdown.id());
                inbox.markRouted(key, shutdown.id());
                shutdown = null;
            } else if (MessageType.SHUTDOWN_REQUEST.wire().equals(type)) {
                if (shutdown == null) {
                    shutdown = r;
                } else {
                    inbox.markRouted(key, r.id()); // one shutdown is enough
                }
            } else if (Ids.LEAD.equals(r.sender()) && MessageType.PLAN_APPROVAL_RESPONSE.wire().equals(type)) {
                planAnswered(key, r);
            } else if (Ids.LEAD.equals(r.sender()) && MessageType.MESSAGE.wire().equals(type) && r.metadata() != null
                    && Boolean.TRUE.equals(r.metadata().get(PLAN_REQUIRED))) {
                gates.set(key.team(), key.name(), PlanGateRepository.CLOSED, null);
                Log.infof("team=%s agent=%s plan gate closed: the lead asked for a plan", key.team(), key.name());
            }
        }
        return shutdown;
    }

    private void planAnswered(AgentKey key, PgInbox.Row r) {
        PlanApprovalResponse p;
        try {
            p = MessageMetadata.from(r.metadata(), PlanApprovalResponse.class);
        } catch (ProtocolException e) {
            Log.warnf("team=%s agent=%s plan_approval_response %s unreadable, gate unchanged: %s", key.team(), key.name(),
                    r.id(), e.getMessage());
            return;
        }
        if (p.approve()) {
            gates.set(key.team(), key.name(), PlanGateRepository.OPEN, p.requestId());
            Log.infof("team=%s agent=%s plan %s approved: gate open", key.team(), key.name(), p.requestId());
        } else {
            Log.infof("team=%s agent=%s plan %s rejected: still gated", key.team(), key.name(), p.requestId());
        }
    }

    /**
     * The shutdown (contract §2): {@code shutdown_response} (unless forced), then the final {@code result} with status
     * {@code shutdown}, both to the lead's inbox in that order; the request marked handled; the teammate SHUTDOWN.
     * Ids are derived from the request (and the turn), so a repeat after a failover dedupes in the lead's inbox.
     */
    private void shutDown(AgentKey key, PgInbox.Row request, TurnResult turn) {
        ShutdownRequest meta;
        try {
            meta = MessageMetadata.from(request.metadata(), ShutdownRequest.class);
        } catch (ProtocolException e) {
            meta = new ShutdownRequest(null, null);
        }
        String requestId = meta.requestId() == null ? request.id() : meta.requestId();
        boolean forced = request.metadata() != null && Boolean.TRUE.equals(request.metadata().get(FORCE));
        String how = turn == null ? "while idle" : "at the step boundary of turn " + turn.turnId();
        if (!forced) {
            send(AgentMessage.of(derived("shutdown-response/" + key + "/" + requestId), key.team(), key.name(), Ids.LEAD,
                    "Shutting down gracefully.", new ShutdownResponse(requestId, true, "shutting down " + how),
                    Instant.now()));
        }
        String reason = (forced ? "stopped by the lead: shutdown request " + requestId + " expired"
                : "shutdown requested by the lead (req: " + requestId + ")")
                + (meta.reason() == null ? "" : ": " + meta.reason());
        String turnId = turn == null ? null : turn.turnId();
        String basis = turnId != null ? turnId : "shutdown/" + requestId;
        String summary = "Shut down " + how + " at the lead's request (req: " + requestId + ")"
                + (turn == null ? "." : "; the turn in progress was ended before its next model call.")
                + (turn != null && turn.reason() == StopReason.COMPLETED && turn.text() != null
                        ? "\nIts final answer: " + turn.text() : "");
        send(AgentMessage.of(derived("result/" + key.team() + "/" + key.name() + "/" + basis), key.team(), key.name(),
                Ids.LEAD, summary, new TeammateResult(TeammateResult.SHUTDOWN, reason, turnId), Instant.now()));
        if (turnId != null) {
            teammates.resultSent(key.team(), key.name(), turnId);
        }
        inbox.markRouted(key, request.id());
        if (teammates.shutdown(key.team(), key.name(), reason)) {
            Log.infof("team=%s agent=%s shut down %s: %s", key.team(), key.name(), how, reason);
        }
        events.phase(key.team(), key.name(), Phase.SHUTDOWN.wire(), reason);
    }

    private void send(AgentMessage m) {
        try {
            publisher.send(m).toCompletableFuture().get(ACK_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            Log.errorf("team=%s agent=%s %s %s not sent: interrupted", m.team(), m.from(), m.type().wire(), m.id());
        } catch (Exception e) {
            Log.errorf("team=%s agent=%s %s %s not sent: %s", m.team(), m.from(), m.type().wire(), m.id(), e.toString());
        }
    }

    static String derived(String basis) {
        return UUID.nameUUIDFromBytes(basis.getBytes(StandardCharsets.UTF_8)).toString();
    }
}
