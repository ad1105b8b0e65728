package dev.cohort.lead.approvals;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.engine.ApprovalGateway;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.lead.teams.TeamRepository;
import dev.cohort.lead.web.ApiException;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Produces;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Approvals for teammates (contract §6), behind {@code cohort.internal.token}: {@code POST
 * /internal/v1/teams/{team}/approvals} asks about one tool call of a teammate's turn, exactly as the lead's own gate
 * does ({@link ApprovalService#check}: the id derived from (team, agent, turn, call), so a repeated ask is the same
 * request; {@code approval_requested} names the teammate as {@code agent}), and answers at once: {@code approved},
 * {@code denied} with the reason, or {@code pending} with the approval id the teammate's turn parks on. When a person
 * answers it (or it is found expired), lead-service tells the teammate's host with a {@code control}
 * {@code approval_resolved} on {@code cohort.teammate.inbox}. {@code POST …/approvals/settled} answers which of a
 * host's waited-for approvals are settled, for its sweep. {@code POST …/approvals/cancel} cancels what an ended turn of
 * a teammate still waited for.
 */
@Path("/internal/v1/teams/{team}/approvals")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class InternalApprovalsResource {

    /** Longest timeout a teammate may ask for: a request open longer than a day is forgotten, not pending. */
    static final long MAX_TIMEOUT_SECONDS = 86_400;

    @Inject
    TeamRepository teams;

    @Inject
    ApprovalService approvals;

    @Inject
    ApprovalRepository stored;

    /** Most ids one {@code settled} ask may name: a sweep's parked agents of one replica, with room. */
    static final int MAX_SETTLED_IDS = 1000;

    /** Body of {@code settled}: the approval ids a teammate host's parked agents wait for. */
    public record SettledRequest(List<String> ids) {
    }

    /** Those of them no longer waiting (answered, or past their expiry). */
    public record SettledAnswer(List<String> settled) {
    }

    /**
     * The safety net under {@code approval_resolved} for a teammate host's sweep ({@code AgentProgram.settled}): which
     * of these approvals of the team are answered or past their expiry, one query. The parked turn then asks again
     * ({@link #check}), which answers and marks an expired one.
     */
    @POST
    @Path("/settled")
    public SettledAnswer settled(@PathParam("team") String team, SettledRequest body) {
        if (!teams.exists(team)) {
            throw ApiException.notFound("unknown team \"" + team + "\"");
        }
        if (body == null || body.ids() == null) {
            throw ApiException.badRequest("body required: {\"ids\": [\"<approval id>\", …]}");
        }
        if (body.ids().size() > MAX_SETTLED_IDS) {
            throw ApiException.badRequest("at most " + MAX_SETTLED_IDS + " ids per ask, not " + body.ids().size());
        }
        return new SettledAnswer(stored.settled(team, body.ids().stream().filter(Objects::nonNull).distinct()
                .toList()));
    }

    /** Body of {@code cancel}: the teammate and its turn that ended. */
    public record CancelRequest(String agent, String turnId, String reason) {
    }

    /** The approvals it cancelled (none when each was answered or expired first). */
    public record CancelAnswer(List<String> cancelled) {
    }

    /** Longest reason stored with a cancellation: it is a short sentence from the host, not a transcript. */
    static final int MAX_CANCEL_REASON = 500;

    /**
     * A teammate's turn ended (interrupted, failed, out of budget, shut down) while parked on approvals: they are
     * cancelled ({@link ApprovalService#turnEnded}), so nobody is asked to answer them any more. Idempotent: a repeat
     * cancels nothing and answers an empty list.
     */
    @POST
    @Path("/cancel")
    public CancelAnswer cancel(@PathParam("team") String team, CancelRequest body) {
        if (!teams.exists(team)) {
            throw ApiException.notFound("unknown team \"" + team + "\"");
        }
        if (body == null) {
            throw ApiException.badRequest("body required: {\"agent\", \"turnId\", \"reason\"?}");
        }
        if (!Ids.isAgent(body.agent()) || Ids.LEAD.equals(body.agent())) {
            throw ApiException.badRequest("agent \"" + body.agent() + "\" is not a teammate name: it must match "
                    + Ids.AGENT.pattern() + " and not be \"lead\"");
        }
        require("turnId", body.turnId());
        String reason = body.reason() == null || body.reason().isBlank() ? "the turn ended before an answer" : body.reason();
        if (reason.length() > MAX_CANCEL_REASON) {
            throw ApiException.badRequest("reason is longer than " + MAX_CANCEL_REASON + " characters");
        }
        return new CancelAnswer(approvals.turnEnded(team, body.agent(), body.turnId(), reason));
    }

    /** Body of an ask: the engine's {@link ApprovalGateway.Request}, the timeout in seconds. */
    public record CheckRequest(String agent, String turnId, String callId, String tool, JsonNode args, String reason,
            Long timeoutSeconds) {
    }

    /** The answer: {@code approved}, {@code denied} (+ {@code reason}) or {@code pending} (+ {@code approvalId}). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record CheckAnswer(String status, String reason, String approvalId) {
        static CheckAnswer of(ApprovalGateway.Decision d) {
            return new CheckAnswer(d.status().name().toLowerCase(Locale.ROOT), d.reason(), d.approvalId());
        }
    }

    @POST
    public CheckAnswer check(@PathParam("team") String team, CheckRequest body) {
        if (!teams.exists(team)) {
            throw ApiException.notFound("unknown team \"" + team + "\"");
        }
        if (body == null) {
            throw ApiException.badRequest("body required: {\"agent\", \"turnId\", \"callId\", \"tool\", \"args\", "
                    + "\"reason\", \"timeoutSeconds\"}");
        }
        if (!Ids.isAgent(body.agent()) || Ids.LEAD.equals(body.agent())) {
            throw ApiException.badRequest("agent \"" + body.agent() + "\" is not a teammate name (the lead's approvals "
                    + "are its own): it must match " + Ids.AGENT.pattern() + " and not be \"lead\"");
        }
        require("turnId", body.turnId());
        require("callId", body.callId());
        require("tool", body.tool());
        if (body.args() != null && !body.args().isNull() && !body.args().isObject()) {
            throw ApiException.badRequest("args must be the call's arguments object");
        }
        if (body.timeoutSeconds() == null || body.timeoutSeconds() < 1 || body.timeoutSeconds() > MAX_TIMEOUT_SECONDS) {
            throw ApiException.badRequest("timeoutSeconds must be between 1 and " + MAX_TIMEOUT_SECONDS + ", not "
                    + body.timeoutSeconds());
        }
        ObjectNode args = body.args() instanceof ObjectNode o ? o : Json.MAPPER.createObjectNode();
        return CheckAnswer.of(approvals.check(new ApprovalGateway.Request(team, body.agent(), body.turnId(), body.callId(),
                body.tool(), args, body.reason(), Duration.ofSeconds(body.timeoutSeconds()))));
    }

    private static void require(String field, String value) {
        if (value == null || value.isBlank()) {
            throw ApiException.badRequest(field + " is required");
        }
    }
}
