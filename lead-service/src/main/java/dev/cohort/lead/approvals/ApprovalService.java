package dev.cohort.lead.approvals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.cohort.core.engine.ApprovalGateway;
import dev.cohort.core.engine.CallDigest;
import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.payload.ApprovalUpdate;
import dev.cohort.core.protocol.payload.Control;
import dev.cohort.lead.approvals.ApprovalRepository.ApprovalRow;
import dev.cohort.lead.events.EventService;
import dev.cohort.lead.inbox.AgentInboxPublisher;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The engine's {@link ApprovalGateway} for leads. {@link #check} never waits: the first ask stores the request (its
 * id derived from (team, agent, turn, call), so a resumed turn asks about the same request rather than twice) and
 * announces it with {@code approval_requested}; every ask answers the request's current state. While it is pending
 * the engine parks the turn and the lead's actor stops: no thread waits for a human. Answering it ({@link #resolve},
 * HTTP or the CLI, on any replica) or its expiry wakes the team's lead, which resumes the turn; the gate asks again
 * and finds the answer. An expired request is a denial.
 *
 * <p>Teammates ask through {@code POST /internal/v1/teams/{team}/approvals} (their host's {@code RemoteApprovalGateway}),
 * the same {@link #check}; when such a request is answered or found expired, the teammate's host is told with a
 * {@code control} {@code approval_resolved} on {@code cohort.teammate.inbox} instead of waking a lead.
 */
@ApplicationScoped
public class ApprovalService implements ApprovalGateway {

    @Inject
    ApprovalRepository approvals;

    @Inject
    EventService events;

    /** The leads of this replica (looked up lazily: the host's engine uses this gateway). */
    @Inject
    Instance<ParkedTurns> host;

    @Inject
    AgentInboxPublisher inbox;

    /** The id of the approval request of one tool call of one turn. */
    public static String idOf(String team, String agent, String turnId, String callId) {
        return UUID.nameUUIDFromBytes((team + "/" + agent + "/" + turnId + "/" + callId)
                .getBytes(StandardCharsets.UTF_8)).toString();
    }

    @Override
    public Decision check(Request r) {
        String id = idOf(r.team(), r.agent(), r.turnId(), r.callId());
        ApprovalRow row = approvals.find(id).orElse(null);
        String digest = r.digest();
        if (row == null) {
            row = approvals.insertIfAbsent(id, r.team(), r.agent(), r.turnId(), r.callId(), r.tool(), r.args(), digest,
                    r.reason(), Instant.now().plus(r.timeout()));
            events.record(new Event("approval_requested-" + id, r.team(), r.agent(), 0, row.createdAt(),
                    EventType.APPROVAL_REQUESTED, view(EventType.APPROVAL_REQUESTED, row)));
            Log.infof("team=%s agent=%s call=%s approval %s requested: %s", r.team(), r.agent(), r.callId(), id, r.reason());
        }
        if ("expired".equals(row.status())) {
            boolean now = approvals.expire(id);
            row = approvals.find(id).orElseThrow();
            announceResolved(row);
            if (now && !Ids.LEAD.equals(row.agent())) {
                notifyTeammate(row);
            }
        }
        if (!coversCall(row, r.tool(), digest)) {
            // the same (turn, call) now asks for another call: the answer given (or awaited) is not for this one
            Log.warnf("team=%s agent=%s call=%s approval %s was asked for %s with other arguments; refused", r.team(),
                    r.agent(), r.callId(), id, row.tool());
            return Decision.deny("approval " + id + " was asked for another call (" + row.tool() + " with other"
                    + " arguments); an approval covers exactly the call it was asked for (rule: approval-mismatch)");
        }
        return switch (row.status()) {
            case "pending" -> Decision.pending(id);
            case "approved" -> Decision.approve();
            case "denied" -> Decision.deny("denied by the user" + (row.answer() == null || row.answer().isBlank() ? ""
                    : ": " + row.answer()));
            default -> Decision.deny("no answer within " + humanize(Duration.ofSeconds(Math.round(
                    Duration.between(row.createdAt(), row.expiresAt()).toMillis() / 1000.0))) + " (approval " + id + " expired)");
        };
    }

    /**
     * {@code true} when the stored request is for {@code tool} with arguments of {@code digest}: its recorded digest,
     * or (a request stored before digests were recorded) the digest of its stored arguments.
     */
    static boolean coversCall(ApprovalRow row, String tool, String digest) {
        if (!row.tool().equals(tool)) {
            return false;
        }
        String stored = row.argsDigest() != null ? row.argsDigest() : CallDigest.of(row.tool(), row.argsJson());
        return stored.equals(digest);
    }

    /** Answers a pending request (HTTP / CLI); false when it is not pending any more. */
    public boolean resolve(String team, String id, boolean approve, String reason) {
        boolean done = approvals.resolve(team, id, approve, reason);
        if (done) {
            approvals.find(id).ifPresent(row -> {
                announceResolved(row);
                if (!Ids.LEAD.equals(row.agent())) {
                    notifyTeammate(row);
                } else if (!host.get().wakeIfParked(row.team())) {
                    // the parked turn resumes and finds the answer: here at once, or on the replica that hosts the lead
                    wakeOwner(row);
                }
            });
        }
        return done;
    }

    /**
     * Turn {@code turnId} of {@code agent} ended (interrupted, failed, out of budget) while requests of it may still
     * wait for a person: they are cancelled, each announced with {@code approval_resolved} (status {@code cancelled}),
     * so the dashboard, {@code cohort chat} and {@code cohort approve} stop offering an answer nobody waits for. No
     * wake-up: the turn that asked is over. A failure is logged, never thrown: the turn's end is already recorded, and
     * such a request then stays pending until it expires, as before.
     */
    public List<String> turnEnded(String team, String agent, String turnId, String why) {
        if (turnId == null) {
            return List.of();
        }
        try {
            List<String> ids = new ArrayList<>();
            for (ApprovalRow row : approvals.cancelPendingOfTurn(team, agent, turnId, why)) {
                announceResolved(row);
                ids.add(row.id());
                Log.infof("team=%s agent=%s turn=%s approval %s cancelled: %s", team, agent, turnId, row.id(), why);
            }
            return ids;
        } catch (RuntimeException e) {
            Log.warnf("team=%s agent=%s turn=%s pending approvals not cancelled (they stay pending until they expire): %s",
                    team, agent, turnId, e.toString());
            return List.of();
        }
    }

    /**
     * The lead is not parked here: tell the replica that owns the team (a {@code control} on its inbox partition), so
     * the turn resumes now rather than at that replica's next sweep, which remains the safety net if this fails.
     */
    private void wakeOwner(ApprovalRow row) {
        try {
            inbox.publish(AgentMessage.of(row.team(), "approvals",
                    Ids.LEAD, "", Control.approvalResolved(row.id())));
        } catch (RuntimeException e) {
            Log.warnf("team=%s approval %s answered; the lead's owner not told (its sweep will find it): %s", row.team(),
                    row.id(), e.toString());
        }
    }

    /**
     * A teammate's approval was answered or expired: a {@code control} {@code approval_resolved} on its inbox
     * ({@code cohort.teammate.inbox}, key {@code <team>/<name>}, contract §6), so the replica hosting it wakes the
     * parked turn, which asks again and finds the answer. Its id is derived from the approval, so a repeat dedupes. A
     * failure is logged: the teammate's own sweep still finds the answer when its turn asks again.
     */
    private void notifyTeammate(ApprovalRow row) {
        try {
            inbox.publish(AgentMessage.of("approval_resolved-" + row.id(), row.team(), "approvals",
                    row.agent(), "", Control.approvalResolved(row.id()), Instant.now()));
        } catch (RuntimeException e) {
            Log.warnf("team=%s agent=%s approval %s %s; the teammate's host not told (its sweep will find it): %s",
                    row.team(), row.agent(), row.id(), row.status(), e.toString());
        }
    }

    private void announceResolved(ApprovalRow row) {
        events.record(new Event("approval_resolved-" + row.id(), row.team(), row.agent(), 0,
                row.resolvedAt() == null ? Instant.now() : row.resolvedAt(), EventType.APPROVAL_RESOLVED, view(EventType.APPROVAL_RESOLVED, row)));
    }

    /** The data of an approval event: the request as it stands. */
    static JsonNode view(EventType type, ApprovalRow row) {
        JsonNode args;
        try {
            args = Json.MAPPER.readTree(row.argsJson());
        } catch (Exception e) {
            args = TextNode.valueOf(row.argsJson());
        }
        return Json.MAPPER.valueToTree(new ApprovalUpdate(type, row.id(), row.tool(),
                row.reason(), row.status(), row.callId(), row.turnId(), row.expiresAt().toString(), args, row.answer()));
    }

    private static String humanize(Duration d) {
        return d.toSeconds() % 60 == 0 && d.toMinutes() > 0 ? d.toMinutes() + " min" : d.toSeconds() + " s";
    }
}
