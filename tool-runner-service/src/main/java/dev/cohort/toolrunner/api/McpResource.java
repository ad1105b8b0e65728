package dev.cohort.toolrunner.api;

import dev.cohort.core.mcp.McpListRequest;
import dev.cohort.core.mcp.McpServerConfig;
import dev.cohort.core.mcp.McpServerTools;
import dev.cohort.core.protocol.Ids;
import dev.cohort.toolrunner.BadRequest;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.mcp.McpException;
import dev.cohort.toolrunner.mcp.McpHost;
import dev.cohort.toolrunner.remote.RemoteSandboxes;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /internal/v1/mcp/tools}: the tools of a team's MCP servers ({@link McpListRequest} → one
 * {@link McpServerTools} per server, in order), each server started in the team's sandbox when it never was. A server
 * that cannot be started or listed is an entry with its {@code error}, not a failed request. The control half
 * (Kubernetes) lists them in the team's sandbox pod. Calls of the tools are
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
    @Inject
    RemoteSandboxes remote;

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
        if (config.role() != ToolRunnerConfig.Role.CONTROL) {
            return host.tools(req);
        }
        // the control half: the servers are listed in the team's sandbox pod, with this runner's variables read here
        List<McpServerConfig> sent = new ArrayList<>();
        Map<String, String> unset = new HashMap<>();
        for (McpServerConfig s : servers) {
            try {
                sent.add(host.resolved(s));
            } catch (McpException e) {
                unset.put(s.name(), e.getMessage());
            }
        }
        Map<String, McpServerTools> listed = new HashMap<>();
        if (!sent.isEmpty()) {
            remote.mcpTools(new McpListRequest(req.team(), req.agent(), req.readOnly(), sent))
                    .forEach(t -> listed.put(t.server(), t));
        }
        return servers.stream().map(s -> unset.containsKey(s.name())
                ? new McpServerTools(s.name(), null, 0, unset.get(s.name()))
                : listed.getOrDefault(s.name(), new McpServerTools(s.name(), null, 0, "MCP server '" + s.name()
                        + "' was not listed by the team's sandbox"))).toList();
    }
}
