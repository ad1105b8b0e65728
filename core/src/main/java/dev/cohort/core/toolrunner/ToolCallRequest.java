package dev.cohort.core.toolrunner;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.mcp.McpServerConfig;
import java.util.Map;

/**
 * One tool call sent to tool-runner-service ({@code POST /internal/v1/tools/{name}}).
 *
 * @param team   the team id; selects the workspace
 * @param agent  the calling agent ({@code lead} or a teammate name); set by the host, never by the model
 * @param callId the model's tool-call id; unique per team and agent, so a retried call is answered from the runner's
 *               record instead of running twice
 * @param cwd    where the call runs, chosen by the host, never by the model: {@code null}/{@code ""} for the team
 *               workspace, a workspace-relative directory, or {@code wt:<name>} for a worktree (as returned by
 *               {@code create_worktree} in {@code cwd})
 * @param args     the tool's arguments as the model gave them
 * @param readOnly set by the host when the agent works read-only (its team's permission mode is {@code plan}): the
 *                 runner then refuses writes and runs commands with the workspace, the worktrees and the team's
 *                 {@code HOME} mounted read-only; {@code null} (absent) = {@code false}
 * @param mcp      for a tool of an MCP server ({@code mcp__<server>__<tool>}): the server, which the runner starts in
 *                 the team's sandbox (or reaches under its egress rules) when it is not running; {@code null} else
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ToolCallRequest(String team, String agent, String callId, String cwd, Map<String, Object> args,
        Boolean readOnly, McpServerConfig mcp) {

    public ToolCallRequest {
        args = args == null ? Map.of() : args;
    }

    /** A request of an agent that may write (the usual case). */
    public ToolCallRequest(String team, String agent, String callId, String cwd, Map<String, Object> args) {
        this(team, agent, callId, cwd, args, null, null);
    }

    /** A call of a workspace tool. */
    public ToolCallRequest(String team, String agent, String callId, String cwd, Map<String, Object> args,
            Boolean readOnly) {
        this(team, agent, callId, cwd, args, readOnly, null);
    }

    /** {@code true} when the runner must not let this call change anything. */
    @JsonIgnore
    public boolean isReadOnly() {
        return Boolean.TRUE.equals(readOnly);
    }
}
