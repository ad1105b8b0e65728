package dev.cohort.lead.protocols;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.util.List;
import java.util.Set;

/**
 * Shutdown and plan-approval requests of a team: list them (by status and type), and let a person decide
 * a plan approval ({@code POST …/{id} {approve, feedback?}}), which goes through the same conditional transition as
 * the lead's {@code review_plan}. A shutdown request is answered by its teammate only: deciding one here is a 409.
 */
@Path("/api/v1/teams/{team}/protocols")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class ProtocolsResource {

    private static final Set<String> STATUSES = Set.of(ProtocolRepository.PENDING, ProtocolRepository.APPROVED,
            ProtocolRepository.REJECTED, ProtocolRepository.EXPIRED);
    private static final Set<String> TYPES = Set.of(ProtocolRepository.SHUTDOWN, ProtocolRepository.PLAN_APPROVAL);
    /** Longest feedback a person may give: it is injected into the teammate's conversation. */
    private static final int MAX_FEEDBACK = 16_000;
    /** Who a decision over HTTP is recorded as. */
    public static final String PERSON = "user";

    @Inject
    TeamRepository teams;

    @Inject
    ProtocolRepository protocols;

    @Inject
    ProtocolService service;

    /** Body of a decision. */
    public record Decision(Boolean approve, String feedback) {
    }

    @GET
    public List<JsonNode> list(@PathParam("team") String team, @QueryParam("status") String status,
            @QueryParam("type") String type) {
        requireTeam(team);
        if (status != null && !STATUSES.contains(status)) {
            throw ApiException.badRequest("status must be one of " + STATUSES.stream().sorted().toList());
        }
        if (type != null && !TYPES.contains(type)) {
            throw ApiException.badRequest("type must be one of " + TYPES.stream().sorted().toList());
        }
        return protocols.list(team, status, type).stream().map(ProtocolService::view).toList();
    }

    @GET
    @Path("/{id}")
    public JsonNode get(@PathParam("team") String team, @PathParam("id") String id) {
        requireTeam(team);
        return ProtocolService.view(protocols.find(team, id).orElseThrow(() -> unknown(team, id)));
    }

    @POST
    @Path("/{id}")
    public JsonNode decide(@PathParam("team") String team, @PathParam("id") String id, Decision body) {
        requireTeam(team);
        if (body == null || body.approve() == null) {
            throw ApiException.badRequest("body required: {\"approve\": true|false, \"feedback\"?: \"…\"}");
        }
        if (body.feedback() != null && body.feedback().length() > MAX_FEEDBACK) {
            throw ApiException.badRequest("feedback has " + body.feedback().length() + " characters; the limit is "
                    + MAX_FEEDBACK);
        }
        ProtocolRepository.ProtocolRow row = protocols.find(team, id).orElseThrow(() -> unknown(team, id));
        if (ProtocolRepository.SHUTDOWN.equals(row.type())) {
            throw ApiException.conflict("request \"" + id + "\" is a shutdown request: only its teammate answers it"
                    + " (people decide plan approvals)");
        }
        String feedback = body.feedback() == null || body.feedback().isBlank() ? null : body.feedback().strip();
        try {
            return ProtocolService.view(service.reviewPlan(team, id, body.approve(), feedback, PERSON));
        } catch (ProtocolService.Refusal r) {
            throw new ApiException(r.status(), r.status() == 404 ? "Not Found" : "Conflict", r.getMessage());
        } catch (IllegalStateException e) {
            throw new ApiException(503, "Service Unavailable", "decision recorded but the teammate was not told: "
                    + e.getMessage());
        }
    }

    private static ApiException unknown(String team, String id) {
        return ApiException.notFound("unknown protocol request \"" + id + "\" in team \"" + team + "\"");
    }

    private void requireTeam(String team) {
        if (!teams.exists(team)) {
            throw TeamsResource.notFound(team);
        }
    }
}
