package dev.cohort.lead.api;

import dev.cohort.core.protocol.Ids;
import dev.cohort.core.toolrunner.ToolRunnerException;
import dev.cohort.lead.persistence.TeamRepository;
import dev.cohort.lead.persistence.TeamRow;
import dev.cohort.lead.service.LeadEngine;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/** Teams: {@code POST/GET /api/v1/teams}, {@code GET /api/v1/teams/{team}}. */
@Path("/api/v1/teams")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class TeamsResource {

    /** Permission modes of ARCHITECTURE §3.4. */
    public static final Set<String> PERMISSION_MODES = Set.of("default", "accept-edits", "plan", "bypass", "deny-asks");

    @Inject
    TeamRepository teams;

    @Inject
    LeadEngine engine;

    /** Body of {@code POST /api/v1/teams}. */
    public record CreateTeam(String id, String workspace, String permissionMode) {
    }

    /** A team as the API shows it. */
    public record TeamView(String id, String workspace, String permissionMode, Instant createdAt) {
        static TeamView of(TeamRow r) {
            return new TeamView(r.id(), r.workspace() == null ? (r.id().equals(Ids.DEFAULT_TEAM) ? "." : "teams/" + r.id())
                    : r.workspace(), r.permissionMode(), r.createdAt());
        }
    }

    @POST
    public Response create(CreateTeam body) {
        if (body == null) {
            throw ApiException.badRequest("body required: {\"id\": \"<team>\", \"workspace\"?, \"permissionMode\"?}");
        }
        if (!Ids.isTeam(body.id())) {
            throw ApiException.badRequest("invalid team id \"" + body.id() + "\": must match " + Ids.TEAM.pattern());
        }
        String mode = body.permissionMode() == null ? "default" : body.permissionMode();
        if (!PERMISSION_MODES.contains(mode)) {
            throw ApiException.badRequest("unknown permissionMode \"" + mode + "\"; one of " + PERMISSION_MODES);
        }
        String workspace = body.workspace() == null ? null : prepareWorkspace(body.id(), body.workspace());
        if (!teams.insert(body.id(), workspace, mode)) {
            throw ApiException.conflict("team \"" + body.id() + "\" already exists");
        }
        TeamRow row = teams.find(body.id()).orElseThrow();
        return Response.created(URI.create("/api/v1/teams/" + row.id())).entity(TeamView.of(row)).build();
    }

    /**
     * The tool runner checks the workspace against its allowed roots, prepares it and records it for the team (it is
     * the only thing that touches files); a refusal is a 400 naming its rule. Returns the real path, which is stored.
     */
    private String prepareWorkspace(String team, String workspace) {
        if (teams.exists(team)) {
            throw ApiException.conflict("team \"" + team + "\" already exists");
        }
        try {
            return engine.toolRunner().prepareTeamWorkspace(team, workspace);
        } catch (ToolRunnerException e) {
            throw switch (e.status()) {
                case 400 -> ApiException.badRequest("workspace refused by the tool runner: " + e.detail());
                case 409 -> ApiException.conflict(e.detail());
                default -> new ApiException(503, "Service Unavailable",
                        "the tool runner cannot prepare the workspace now: " + e.detail());
            };
        }
    }

    @GET
    public List<TeamView> list() {
        return teams.list().stream().map(TeamView::of).toList();
    }

    @GET
    @Path("/{team}")
    public TeamView get(@PathParam("team") String team) {
        return teams.find(team).map(TeamView::of).orElseThrow(() -> notFound(team));
    }

    static ApiException notFound(String team) {
        return ApiException.notFound("unknown team \"" + team + "\"");
    }
}
