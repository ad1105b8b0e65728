package dev.cohort.core.mcp;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * A request for the tools of a team's MCP servers ({@code POST /internal/v1/mcp/tools} on the tool runner).
 *
 * @param team     the team (its sandbox runs the servers)
 * @param agent    the asking agent (for the logs)
 * @param readOnly the agent works read-only (plan mode): its local servers run with the workspace read-only
 * @param servers  the servers
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record McpListRequest(String team, String agent, boolean readOnly, List<McpServerConfig> servers) {
}
