package dev.cohort.toolrunner.api;

import dev.cohort.core.mcp.McpListRequest;
import dev.cohort.core.mcp.McpServerConfig;
import dev.cohort.core.mcp.McpServerTools;
import dev.cohort.core.protocol.Ids;
import dev.cohort.toolrunner.BadRequest;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.mcp.McpHost;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/**
 * {@code POST /internal/v1/mcp/tools}: the tools of a team's MCP servers ({@link McpListRequest} → one
 * {@link McpServerTools} per server, in order), each server started in the team's sandbox when it never was. A server
 * that cannot be started or listed is an entry with its {@code error}, not a failed request. Calls of the tools are
 * tool calls ({@code POST /internal/v1/tools/mcp__<server>__<tool>} with the server in {@code mcp}).
 */
@Path("/internal/v1/mcp")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class McpResource {
    @Inject
    McpHost host;
    @Inject
    ToolRunnerConfig config;

    @POST
    @Path("/tools")
    public List<McpServerTools> tools(McpListRequest req) {
        if (req == null || !Ids.isTeam(req.team())) {
            throw new BadRequest("body required: {team, agent, readOnly, servers: [...]}, team matching "
                    + Ids.TEAM.pattern());
        }
        List<McpServerConfig> servers = req.servers() == null ? List.of() : req.servers();
        for (McpServerConfig s : servers) {
            if (s == null || s.name() == null || s.type() == null) {
                throw new BadRequest("every server needs name and type");
            }
        }
        if (config.role() == ToolRunnerConfig.Role.CONTROL) {
            return servers.stream().map(s -> new McpServerTools(s.name(), null, 0, "MCP server '" + s.name() + "': MCP"
                    + " servers run in a team's sandbox on a tool runner of role runner; this runner hands calls to"
                    + " team sandbox pods, where they are not run yet")).toList();
        }
        return host.tools(req);
    }
}
