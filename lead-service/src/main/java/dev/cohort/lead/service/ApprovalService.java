package dev.cohort.lead.service;

import dev.cohort.core.engine.ApprovalGateway;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Json;
import dev.cohort.lead.persistence.ApprovalRepository;
import dev.cohort.lead.persistence.ApprovalRepository.ApprovalRow;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * The engine's {@link ApprovalGateway} for leads: stores the request, announces it with {@code approval_requested},
 * and waits (polling the store, so an answer given on any replica counts) until it is answered or expires; an
 * expired request is a denial. The request id is derived from (team, agent, turn, call): a resumed turn waits on
 * the same request rather than asking twice, and the events carry derived ids so they are stored once.
 */
@ApplicationScoped
public class ApprovalService implements ApprovalGateway {

    /** How often a waiting turn re-reads its request: answers are human-paced, 200 ms feels immediate. */
    private static final Duration POLL = Duration.ofMillis(200);

    @Inject
    ApprovalRepository approvals;

    @Inject
    EventService events;

    @Override
    public Decision request(Request r, Duration timeout) {
        String id = UUID.nameUUIDFromBytes((r.team() + "/" + r.agent() + "/" + r.turnId() + "/" + r.callId())
                .getBytes(StandardCharsets.UTF_8)).toString();
        ApprovalRow row = approvals.insertIfAbsent(id, r.team(), r.agent(), r.turnId(), r.callId(), r.tool(), r.args(), r.reason(),
                Instant.now().plus(timeout));
        events.record(new Event("approval_requested-" + id, r.team(), r.agent(), 0, row.createdAt(), EventType.APPROVAL_REQUESTED,
                view(row)));
        Log.infof("team=%s agent=%s call=%s approval %s requested: %s", r.team(), r.agent(), r.callId(), id, r.reason());
        try {
            while (true) {
                row = approvals.find(id).orElseThrow();
                if (!"pending".equals(row.status())) {
                    break;
                }
                Thread.sleep(POLL.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Decision.deny("the turn was interrupted while waiting for approval");
        }
        if ("expired".equals(row.status())) {
            approvals.expire(id);
            row = approvals.find(id).orElseThrow();
        }
        announceResolved(row);
        return switch (row.status()) {
            case "approved" -> Decision.approve();
            case "denied" -> Decision.deny("denied by the user" + (row.answer() == null || row.answer().isBlank() ? ""
                    : ": " + row.answer()));
            default -> Decision.deny("no answer within " + humanize(timeout) + " (approval " + id + " expired)");
        };
    }

    /** Answers a pending request (HTTP / CLI); false when it is not pending any more. */
    public boolean resolve(String team, String id, boolean approve, String reason) {
        boolean done = approvals.resolve(team, id, approve, reason);
        if (done) {
            approvals.find(id).ifPresent(this::announceResolved);
        }
        return done;
    }

    private void announceResolved(ApprovalRow row) {
        events.record(new Event("approval_resolved-" + row.id(), row.team(), row.agent(), 0,
                row.resolvedAt() == null ? Instant.now() : row.resolvedAt(), EventType.APPROVAL_RESOLVED, view(row)));
    }

    static com.fasterxml.jackson.databind.node.ObjectNode view(ApprovalRow row) {
        var d = Event.newData().put("approvalId", row.id()).put("tool", row.tool()).put("reason", row.reason())
                .put("status", row.status()).put("callId", row.callId()).put("turnId", row.turnId())
                .put("expiresAt", row.expiresAt().toString());
        try {
            d.set("args", Json.MAPPER.readTree(row.argsJson()));
        } catch (Exception e) {
            d.put("args", row.argsJson());
        }
        if (row.answer() != null) {
            d.put("answer", row.answer());
        }
        return d;
    }

    private static String humanize(Duration d) {
        return d.toSeconds() % 60 == 0 && d.toMinutes() > 0 ? d.toMinutes() + " min" : d.toSeconds() + " s";
    }
}
