package dev.cohort.core.tools.mcp;

import dev.cohort.core.mcp.McpServerConfig;
import dev.cohort.core.mcp.McpServerTools;
import dev.cohort.core.mcp.McpListRequest;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.toolrunner.ToolCallRequest;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.toolrunner.ToolRunnerClient;
import dev.cohort.core.toolrunner.ToolRunnerException;
import dev.cohort.core.tools.ToolInfrastructureException;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import java.util.List;
import java.util.Map;

/**
 * The production {@link McpGateway}: the tool runner's {@code POST /internal/v1/mcp/tools} lists, and a call is a tool
 * call ({@code POST /internal/v1/tools/mcp__<server>__<tool>}) carrying its server, so it is journaled like every tool
 * call: a repeated call id is answered from the runner's record, never sent to the server twice.
 */
public final class ToolRunnerMcpGateway implements McpGateway {
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
    };

    private final ToolRunnerClient client;

    public ToolRunnerMcpGateway(ToolRunnerClient client) {
        this.client = client;
    }

    @Override
    public List<McpServerTools> tools(String team, String agent, boolean readOnly, List<McpServerConfig> servers) {
        try {
            return client.mcpTools(new McpListRequest(team, agent, readOnly, servers));
        } catch (ToolRunnerException e) {
            throw new ToolInfrastructureException("tool runner failed to list the MCP servers' tools: "
                    + e.getMessage(), e);
        }
    }

    @Override
    public ToolOutcome call(McpServerConfig server, String name, String callId, ObjectNode args,
            WorkspaceToolExecutor.Target target) {
        ToolCallResult r;
        try {
            r = client.call(name, new ToolCallRequest(target.team(), target.agent(), callId, target.cwd(),
                    Json.MAPPER.convertValue(args, MAP), target.readOnly() ? Boolean.TRUE : null, server));
        } catch (ToolRunnerException e) {
            if (e.status() == 400 || e.status() == 404 || e.status() == 422) {
                return ToolOutcome.failure(e.getMessage());
            }
            throw new ToolInfrastructureException("tool runner failed for " + name + ": " + e.getMessage(), e);
        }
        return new ToolOutcome(r.output(), r.error(), r.exitCode(), Boolean.TRUE.equals(r.truncated()), r.outputRef(),
                r.durationMs(), null);
    }
}
