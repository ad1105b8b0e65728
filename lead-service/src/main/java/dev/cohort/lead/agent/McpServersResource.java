package dev.cohort.lead.agent;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.engine.hooks.WorkspaceHookSettings;
import dev.cohort.core.engine.permission.WorkspacePermissionSettings;
import dev.cohort.core.mcp.McpServerConfig;
import dev.cohort.core.mcp.McpServers;
import dev.cohort.core.mcp.WorkspaceMcpSettings;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import dev.cohort.lead.teams.McpServerRepository;
import dev.cohort.lead.teams.TeamRepository;
import dev.cohort.lead.teams.TeamsResource;
import dev.cohort.lead.web.ApiException;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A team's MCP servers in the shape of Claude Code's {@code .mcp.json} ({@link McpServers}):
 * {@code GET /api/v1/teams/{team}/mcp} → the team's own servers ({@code mcpServers}), those of the workspace's
 * {@code .cohort/settings.json} ({@code settingsFile}, with {@code error} when its {@code mcpServers} cannot be used and
 * the last good ones are in force) and the servers the lead gets ({@code inForce}, each with its source), every secret
 * shown as {@value McpServers#STORED}; {@code PUT} with {@code {"mcpServers": {...}}} replaces the team's own servers
 * ({@code {"mcpServers": {}}} removes them), which the lead, its subagents and the teammates (only the agents a
 * server's {@code agents} names, when it names any) get from their next turn.
 * A value sent back as {@value McpServers#STORED} keeps the stored one. A wrong field is a 400 problem naming it (never
 * a value); an unknown team a 404. Neither the request nor a secret is logged.
 */
@Path("/api/v1/teams/{team}/mcp")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class McpServersResource {

    /** The one field of a {@code PUT} body. */
    static final String FIELD = "mcpServers";
    /** What a {@code PUT} body looks like, for the messages. */
    private static final String EXAMPLE = "{\"mcpServers\": {\"<name>\": {\"command\": \"npx\", \"args\": [...]},"
            + " \"<name>\": {\"type\": \"http\", \"url\": \"https://…\", \"headers\": {...}}}}";
    /** The line numbers read_file puts before each line. */
    private static final Pattern NUMBERED = Pattern.compile("^ *\\d+\\t", Pattern.MULTILINE);

    /**
     * The team's MCP servers, secrets redacted.
     *
     * @param team         the team
     * @param mcpServers   its own servers (the API's), as {@code PUT} takes them: sent back, they change nothing
     * @param settingsFile the servers of the workspace's settings file as the engine reads them; absent without one
     * @param inForce      the servers the lead gets: the file's, then the team's, which replace a file's server of the
     *                     same name; each with its {@code source} ({@code api} or {@code settings})
     */
    public record McpView(String team, ObjectNode mcpServers, SettingsFile settingsFile, List<McpServerConfig> inForce) {
    }

    /**
     * The settings file's servers.
     *
     * @param path       the file, relative to the team workspace root
     * @param mcpServers its servers in force (its last good ones while {@code error} is set)
     * @param error      why the file's servers are not read now; absent when they are (or there is no file)
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SettingsFile(String path, ObjectNode mcpServers, String error) {
    }

    @Inject
    TeamRepository teams;

    @Inject
    McpServerRepository repository;

    @Inject
    LeadEngine engine;

    @GET
    public McpView get(@PathParam("team") String team) {
        known(team);
        Map<String, McpServerConfig> own = repository.find(team);
        SettingsFile settings = null;
        Map<String, McpServerConfig> fromFile = Map.of();
        String path = engine.engine().workspacePermissions().map(WorkspacePermissionSettings::path).orElse(null);
        if (path != null) {
            WorkspaceMcpSettings.Result file = readSettingsFile(team, path);
            fromFile = file.servers();
            settings = new SettingsFile(path, McpServers.toJson(redacted(fromFile)), file.problem());
        }
        List<McpServerConfig> inForce = McpServers.forAgent(fromFile, own, Ids.LEAD).stream()
                .map(McpServerConfig::redacted).toList();
        return new McpView(team, McpServers.toJson(redacted(own)), settings, inForce);
    }

    @PUT
    public McpView put(@PathParam("team") String team, JsonNode body) {
        known(team);
        if (body == null || !body.isObject()) {
            throw ApiException.badRequest("body required: " + EXAMPLE + "; {\"mcpServers\": {}} removes the team's"
                    + " servers");
        }
        for (Iterator<String> it = body.fieldNames(); it.hasNext();) {
            String f = it.next();
            if (!f.equals(FIELD)) {
                throw ApiException.badRequest("invalid MCP servers: " + f + ": unknown field; the body is " + EXAMPLE);
            }
        }
        if (!body.hasNonNull(FIELD)) {
            throw ApiException.badRequest("invalid MCP servers: " + FIELD + ": required: " + EXAMPLE
                    + "; {\"mcpServers\": {}} removes the team's servers");
        }
        Map<String, McpServerConfig> servers;
        try {
            servers = McpServers.keepStored(McpServers.parse(body.get(FIELD), FIELD, McpServerRepository.SOURCE),
                    repository.find(team), FIELD);
        } catch (McpServers.InvalidConfig e) {
            // the message names the field, never a value
            throw ApiException.badRequest("invalid MCP servers: " + e.getMessage());
        }
        repository.save(team, servers);
        return get(team);
    }

    /**
     * The settings file's servers, read as the engine reads them at a turn's start (the same read_file through the tool
     * runner, in the team workspace): a missing file has none; a file that cannot be read keeps the last good ones.
     */
    private WorkspaceMcpSettings.Result readSettingsFile(String team, String path) {
        WorkspaceMcpSettings reader = engine.engine().workspaceMcp();
        ToolOutcome out;
        try {
            out = WorkspaceHookSettings.readSettingsFile(engine.workspace(),
                    new WorkspaceToolExecutor.Target(team, Ids.LEAD, null), path);
        } catch (RuntimeException e) {
            return new WorkspaceMcpSettings.Result(reader.kept(team), "cannot read " + path + " through the tool runner: "
                    + e.getMessage() + "; the last valid MCP servers of it stay in force");
        }
        if (out.isError() && !WorkspaceHookSettings.notFound(out)) {
            return new WorkspaceMcpSettings.Result(reader.kept(team), "cannot read " + path + ": " + out.error()
                    + "; the last valid MCP servers of it stay in force");
        }
        String text = out.isError() ? null : NUMBERED.matcher(out.output() == null ? "" : out.output()).replaceAll("");
        return reader.read(team, path, text);
    }

    private static Map<String, McpServerConfig> redacted(Map<String, McpServerConfig> servers) {
        Map<String, McpServerConfig> out = new LinkedHashMap<>();
        servers.forEach((name, s) -> out.put(name, s.redacted()));
        return out;
    }

    private void known(String team) {
        if (teams.cached(team).isEmpty()) {
            throw TeamsResource.notFound(team);
        }
    }
}
