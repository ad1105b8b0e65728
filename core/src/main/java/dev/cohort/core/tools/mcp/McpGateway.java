package dev.cohort.core.tools.mcp;

import dev.cohort.core.mcp.McpServerConfig;
import dev.cohort.core.mcp.McpServerTools;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import java.util.List;

/**
 * Where a team's MCP servers run: the tool runner ({@link ToolRunnerMcpGateway}), which starts a local server in the
 * team's sandbox and reaches a remote one under the team's egress rules. The engine never speaks MCP itself.
 */
public interface McpGateway {

    /**
     * The tools of {@code servers}, one entry per server in their order; a server that cannot be reached is an entry
     * with its {@code error}.
     *
     * @throws dev.cohort.core.tools.ToolInfrastructureException when the tool runner is unreachable after retries
     */
    List<McpServerTools> tools(String team, String agent, boolean readOnly, List<McpServerConfig> servers);

    /**
     * Calls tool {@code tool} (the server's name for it) of {@code server} as {@code name}
     * ({@code mcp__<server>__<tool>}), at most once per call id.
     *
     * @return the outcome; a failure the model should see (the server crashed, did not answer in time, answered an
     *         error) is an outcome with {@code error} naming the server
     * @throws dev.cohort.core.tools.ToolInfrastructureException when the tool runner is unreachable after retries
     */
    ToolOutcome call(McpServerConfig server, String name, String callId, ObjectNode args,
            WorkspaceToolExecutor.Target target);
}
