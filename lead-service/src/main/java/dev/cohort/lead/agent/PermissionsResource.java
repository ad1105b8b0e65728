package dev.cohort.lead.agent;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.permission.PermissionRuleSet;
import dev.cohort.core.engine.permission.WorkspacePermissionSettings;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import dev.cohort.lead.teams.PermissionRepository;
import dev.cohort.lead.teams.TeamRepository;
import dev.cohort.lead.teams.TeamsResource;
import dev.cohort.lead.web.ApiException;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.PUT;
import java.util.List;

/**
 * A team's permission rules in Claude Code's syntax ({@link dev.cohort.core.engine.permission.PermissionRule}):
 * {@code GET /api/v1/teams/{team}/permissions} → the team's own rules ({@code allow}, {@code ask}, {@code deny}), those
 * of the workspace's {@code .cohort/settings.json} ({@code settingsFile}, with {@code error} when the file cannot be
 * used and the last good rules are in force) and the union in force ({@code inForce}); {@code PUT} with
 * {@code {allow?, ask?, deny?}} replaces the team's own rules (absent = empty), which the lead, its subagents and every
 * teammate follow from their next turn. A malformed rule or an unknown field is a 400 problem naming it and why; an
 * unknown team a 404.
 */
@Path("/api/v1/teams/{team}/permissions")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class PermissionsResource {

    /**
     * The team's permission rules.
     *
     * @param team         the team
     * @param allow        its own allow rules (the API's)
     * @param ask          its own ask rules
     * @param deny         its own deny rules
     * @param settingsFile the rules of the workspace's settings file as the engine reads them
     * @param inForce      both together: what the gate matches (deny over ask over allow)
     */
    public record PermissionsView(String team, List<String> allow, List<String> ask, List<String> deny,
            SettingsFile settingsFile, PermissionRuleSet inForce) {
    }

    /**
     * The settings file's rules.
     *
     * @param path  the file, relative to the team workspace root
     * @param allow its allow rules in force (its last good ones while {@code error} is set)
     * @param ask   its ask rules in force
     * @param deny  its deny rules in force
     * @param error why the file's current text is not used; absent when it is (or there is no file)
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SettingsFile(String path, List<String> allow, List<String> ask, List<String> deny, String error) {
    }

    @Inject
    TeamRepository teams;

    @Inject
    PermissionRepository repository;

    @Inject
    LeadEngine engine;

    @GET
    public PermissionsView get(@PathParam("team") String team) {
        known(team);
        PermissionRuleSet own = repository.find(team);
        WorkspacePermissionSettings.Result file = engine.engine().workspacePermissions()
                .map(s -> s.read(engine.workspace(), new WorkspaceToolExecutor.Target(team, Ids.LEAD, null)))
                .orElse(null);
        PermissionRuleSet fromFile = file == null ? PermissionRuleSet.EMPTY : file.rules();
        SettingsFile settings = file == null ? null : new SettingsFile(engine.engine().workspacePermissions().get()
                .path(), fromFile.allow(), fromFile.ask(), fromFile.deny(), file.problem());
        return new PermissionsView(team, own.allow(), own.ask(), own.deny(), settings, own.union(fromFile));
    }

    @PUT
    public PermissionsView put(@PathParam("team") String team, JsonNode body) {
        known(team);
        if (body == null || !body.isObject()) {
            throw ApiException.badRequest("body required: {\"allow\": [...], \"ask\": [...], \"deny\": [...]} of rules"
                    + " such as \"Bash(npm test)\", \"Read(./secrets/**)\"; {} removes the team's rules");
        }
        PermissionRuleSet rules;
        try {
            rules = PermissionRuleSet.fromJson(body, "permissions");
        } catch (PermissionRuleSet.InvalidRules e) {
            throw ApiException.badRequest("invalid permission rules: " + e.getMessage());
        }
        repository.save(team, rules);
        return get(team);
    }

    private void known(String team) {
        if (teams.cached(team).isEmpty()) {
            throw TeamsResource.notFound(team);
        }
    }
}
