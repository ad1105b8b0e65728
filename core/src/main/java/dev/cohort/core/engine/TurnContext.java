package dev.cohort.core.engine;

import dev.cohort.core.engine.permission.PermissionMode;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.skills.SkillCatalog;
import dev.cohort.core.tools.subagent.SubagentRunner;
import dev.cohort.core.tools.todo.TodoList;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What does not change during one loop (codex's {@code TurnContext}): identity, the turn, the policy, the tools
 * allowed and offered, the caps. It is also the {@link ToolContext} the tools see; only the working directory is
 * read again at every call ({@link #cwd()}), because a host may move the agent into a task's worktree mid-turn.
 *
 * @param team       team id
 * @param agent      agent name
 * @param role       lead, teammate or subagent
 * @param turnId     the turn
 * @param unattended nobody watches: asks are denied
 * @param cwdSource  the host's working directory, consulted per call
 * @param workspace  executor of workspace tools
 * @param todos      the agent's todo list
 * @param skills     the skills this agent can load
 * @param subagents  how {@code spawn_subagent} runs (a subagent's context refuses)
 * @param policy     persistent or ephemeral loop
 * @param allowlist  tools this loop may call (enforced at execution)
 * @param offered    the allowed tools that exist, whose specs are sent
 * @param baseSpecs  their specs ({@link #specs()} adds the MCP tools')
 * @param modelUser  the OpenAI {@code user} of every call ({@code <team>/<name>}, {@code /sub} for a subagent)
 * @param maxCalls   the model-call cap of the loop
 * @param storeKey   where transcripts of this loop go
 * @param modeSource the team's permission mode, consulted per call: in {@code plan} the workspace tools run read-only
 * @param mcp        the tools of the agent's MCP servers, listed again at every step
 */
record TurnContext(String team, String agent, AgentRole role, String turnId, boolean unattended,
        Supplier<String> cwdSource, WorkspaceToolExecutor workspace, TodoList todos, SkillCatalog skills,
        SubagentRunner subagents, LoopPolicy policy, Set<String> allowlist, Set<String> offered,
        List<ToolSpecification> baseSpecs, String modelUser, int maxCalls, String storeKey,
        Supplier<PermissionMode> modeSource, McpTurnTools mcp) implements ToolContext {

    /** The specs sent to the model: the engine's offered tools', then the MCP tools' of this step. */
    List<ToolSpecification> specs() {
        return mcp.specs(baseSpecs);
    }

    /** The tool named {@code name}: the engine's, or an MCP tool offered now. */
    Optional<Tool> tool(ToolRegistry tools, String name) {
        Optional<Tool> t = tools.find(name);
        return t.isPresent() ? t : mcp.find(name);
    }

    /** {@code true} when this loop may call {@code tool}: in its allowlist, or an MCP tool offered to it. */
    boolean allows(String tool) {
        return allowlist.contains(tool) || mcp.find(tool).isPresent();
    }

    /** The names of the tools offered now, for messages. */
    List<String> offeredNow() {
        List<String> all = new java.util.ArrayList<>(offered);
        all.addAll(mcp.names());
        return all;
    }

    @Override
    public String cwd() {
        return cwdSource.get();
    }

    @Override
    public boolean readOnly() {
        return modeSource.get() == PermissionMode.PLAN;
    }

    /** {@code true} in a subagent's loop (events say {@code subagent: true}). */
    boolean subagent() {
        return role == AgentRole.SUBAGENT;
    }
}
