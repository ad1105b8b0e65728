package dev.cohort.lead.teams;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.hooks.HookSettings;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.toolrunner.ToolRunnerException;
import dev.cohort.lead.web.ApiException;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.PUT;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * Teams: {@code POST/GET /api/v1/teams}, {@code GET /api/v1/teams/{team}}, and the team's command hooks
 * ({@code hooks} on create, {@code GET/PUT /api/v1/teams/{team}/hooks}; Claude Code's format, {@link HookSettings}).
 */
@Path("/api/v1/teams")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class TeamsResource {

    /** Permission modes of ARCHITECTURE §3.4. */
    public static final Set<String> PERMISSION_MODES = Set.of("default", "accept-edits", "plan", "bypass", "deny-asks");

    @Inject
    TeamRepository teams;

    @Inject
    LeadToolRunner toolRunner;

    /** Body of {@code POST /api/v1/teams}. */
    public record CreateTeam(String id, String workspace, String permissionMode, JsonNode hooks) {
    }

    /** A team as the API shows it ({@code hooks}: its command hooks, {@code {}} when none). */
    public record TeamView(String id, String workspace, String permissionMode, Instant createdAt, JsonNode hooks) {
        static TeamView of(TeamRow r) {
            return new TeamView(r.id(), r.workspace() == null ? (r.id().equals(Ids.DEFAULT_TEAM) ? "." : "teams/" + r.id())
                    : r.workspace(), r.permissionMode(), r.createdAt(), hooksOf(r));
        }
    }

    static JsonNode hooksOf(TeamRow r) {
        return r.hooks() == null ? Json.MAPPER.createObjectNode() : Json.read(r.hooks(), JsonNode.class);
    }

    /** Validated hooks as stored ({@code null} = none); a bad one is a 400 naming the field. */
    static String validHooks(JsonNode hooks) {
        if (hooks == null || hooks.isNull() || hooks.isEmpty() && hooks.isObject()) {
            return null;
        }
        try {
            HookSettings.parse(hooks, "team settings");
        } catch (HookSettings.InvalidHookSettings e) {
            throw ApiException.badRequest("invalid hooks: " + e.getMessage());
        }
        return Json.write(hooks);
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
        String hooks = validHooks(body.hooks()); // checked before the runner prepares anything
        String workspace = body.workspace() == null ? null : prepareWorkspace(body.id(), body.workspace());
        if (!teams.insert(body.id(), workspace, mode, hooks)) {
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
            return toolRunner.client().prepareTeamWorkspace(team, workspace);
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

    @GET
    @Path("/{team}/hooks")
    public JsonNode hooks(@PathParam("team") String team) {
        return teams.find(team).map(TeamsResource::hooksOf).orElseThrow(() -> notFound(team));
    }

    /** Replaces the team's command hooks; they apply from the lead's next turn. {@code {}} removes them. */
    @PUT
    @Path("/{team}/hooks")
    public JsonNode setHooks(@PathParam("team") String team, JsonNode body) {
        if (body == null) {
            throw ApiException.badRequest("body required: the hooks object, e.g. {\"PreToolUse\": [{\"matcher\": \"bash\", "
                    + "\"hooks\": [{\"type\": \"command\", \"command\": \"./check.sh\"}]}]}");
        }
        if (!teams.setHooks(team, validHooks(body))) {
            throw notFound(team);
        }
        return hooks(team);
    }

    public static ApiException notFound(String team) {
        return ApiException.notFound("unknown team \"" + team + "\"");
    }
}
