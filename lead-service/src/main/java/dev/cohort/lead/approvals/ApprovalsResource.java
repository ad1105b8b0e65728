package dev.cohort.lead.approvals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.lead.approvals.ApprovalRepository.ApprovalRow;
import dev.cohort.lead.teams.TeamRepository;
import dev.cohort.lead.teams.TeamsResource;
import dev.cohort.lead.web.ApiException;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/** Approval requests of a team: list (optionally by status) and answer. */
@Path("/api/v1/teams/{team}/approvals")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class ApprovalsResource {

    private static final Set<String> STATUSES = Set.of("pending", "approved", "denied", "expired", "cancelled");

    @Inject
    TeamRepository teams;

    @Inject
    ApprovalRepository approvals;

    @Inject
    ApprovalService service;

    /** Body of an answer. */
    public record Answer(Boolean approve, String reason) {
    }

    /** An approval request as the API shows it. */
    public record ApprovalView(String id, String agent, String turnId, String callId, String tool, JsonNode args, String reason,
            String status, String answer, Instant createdAt, Instant expiresAt, Instant resolvedAt) {
        static ApprovalView of(ApprovalRow r) {
            JsonNode args;
            try {
                args = Json.MAPPER.readTree(r.argsJson());
            } catch (Exception e) {
                args = Json.MAPPER.getNodeFactory().textNode(r.argsJson());
            }
            return new ApprovalView(r.id(), r.agent(), r.turnId(), r.callId(), r.tool(), args, r.reason(), r.status(), r.answer(),
                    r.createdAt(), r.expiresAt(), r.resolvedAt());
        }
    }

    @GET
    public List<ApprovalView> list(@PathParam("team") String team, @QueryParam("status") String status) {
        requireTeam(team);
        if (status != null && !STATUSES.contains(status)) {
            throw ApiException.badRequest("status must be one of " + STATUSES.stream().sorted().toList());
        }
        return approvals.list(team, status).stream().map(ApprovalView::of).toList();
    }

    @POST
    @Path("/{id}")
    public ApprovalView answer(@PathParam("team") String team, @PathParam("id") String id, Answer body) {
        requireTeam(team);
        if (body == null || body.approve() == null) {
            throw ApiException.badRequest("body required: {\"approve\": true|false, \"reason\"?: \"…\"}");
        }
        ApprovalRow row = approvals.find(id).filter(r -> r.team().equals(team))
                .orElseThrow(() -> ApiException.notFound("unknown approval \"" + id + "\" in team \"" + team + "\""));
        if (!service.resolve(team, id, body.approve(), body.reason())) {
            row = approvals.find(id).orElseThrow();
            throw ApiException.conflict("approval \"" + id + "\" is already " + row.status());
        }
        return ApprovalView.of(approvals.find(id).orElseThrow());
    }

    private void requireTeam(String team) {
        if (!teams.exists(team)) {
            throw TeamsResource.notFound(team);
        }
    }
}
