package dev.cohort.core.tools;

import dev.cohort.core.protocol.Ids;
import dev.cohort.core.tools.skills.SkillCatalog;
import dev.cohort.core.tools.subagent.SubagentRunner;
import dev.cohort.core.tools.todo.TodoList;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;

/**
 * What a tool may know and use while it runs, supplied by the engine from host data. Identity (team, agent) and the
 * working directory are the host's, never the model's.
 */
public interface ToolContext {

    /** The team id. */
    String team();

    /** The agent name ({@code lead} or a teammate name); a subagent reports its parent's name. */
    String agent();

    /** {@code <team>/<name>}. */
    default String agentId() {
        return Ids.agentId(team(), agent());
    }

    /** Lead, teammate or subagent. */
    AgentRole role();

    /**
     * The directory workspace tools run in, chosen by the host: {@code null} or empty for the team workspace, a
     * workspace-relative directory, or {@code wt:<name>} for a worktree.
     */
    String cwd();

    /** The id of the running turn, for logs and events. */
    String turnId();

    /**
     * {@code true} while the agent may only read (its team's permission mode is {@code plan}): workspace tools ask the
     * tool runner to enforce it (read-only mounts), beyond the permission gate's own check.
     */
    default boolean readOnly() {
        return false;
    }

    /** {@code true} for turns nobody watches (cron-fired): tools must never wait for a human. */
    boolean unattended();

    /** Executes file and shell tools in the workspace (the tool runner). */
    WorkspaceToolExecutor workspace();

    /** This agent's todo list; mutations are saved with the agent's state. */
    TodoList todos();

    /** The skills this agent can load. */
    SkillCatalog skills();

    /** Runs a subagent; a subagent's own context refuses (no nesting). */
    SubagentRunner subagents();
}
