package dev.cohort.core.testing;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.skills.SkillCatalog;
import dev.cohort.core.tools.subagent.SubagentRunner;
import dev.cohort.core.tools.todo.TodoList;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;

/**
 * A tool context with an identity and nothing else, for testing tools that only need to know who calls them (cron,
 * memory, task board). Anything else fails loudly. Shared with other modules through core's test-jar.
 */
public record IdentityContext(String team, String agent, AgentRole role, WorkspaceToolExecutor workspace)
        implements ToolContext {

    /** An identity without a workspace (tools that touch none). */
    public IdentityContext(String team, String agent, AgentRole role) {
        this(team, agent, role, null);
    }

    /** The lead of {@code team}. */
    public static IdentityContext lead(String team) {
        return new IdentityContext(team, "lead", AgentRole.LEAD);
    }

    /** A teammate of {@code team}. */
    public static IdentityContext teammate(String team, String name) {
        return new IdentityContext(team, name, AgentRole.TEAMMATE);
    }

    @Override
    public String cwd() {
        return null;
    }

    @Override
    public String turnId() {
        return "turn-test";
    }

    @Override
    public boolean unattended() {
        return false;
    }

    @Override
    public WorkspaceToolExecutor workspace() {
        if (workspace == null) {
            throw new UnsupportedOperationException("this tool context has no workspace");
        }
        return workspace;
    }

    @Override
    public TodoList todos() {
        throw new UnsupportedOperationException("this tool context has no todo list");
    }

    @Override
    public SkillCatalog skills() {
        throw new UnsupportedOperationException("this tool context has no skills");
    }

    @Override
    public SubagentRunner subagents() {
        throw new UnsupportedOperationException("this tool context has no subagents");
    }
}
