package dev.cohort.lead.tasks;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.skills.SkillCatalog;
import dev.cohort.core.tools.subagent.SubagentRunner;
import dev.cohort.core.tools.todo.TodoList;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;

/** A tool context as a host would give it: only identity matters to the board tools. */
record TestContext(String team, String agent, AgentRole role) implements ToolContext {

    static TestContext lead(String team) {
        return new TestContext(team, "lead", AgentRole.LEAD);
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
        throw new UnsupportedOperationException("the board tools never touch the workspace");
    }

    @Override
    public TodoList todos() {
        throw new UnsupportedOperationException();
    }

    @Override
    public SkillCatalog skills() {
        throw new UnsupportedOperationException();
    }

    @Override
    public SubagentRunner subagents() {
        throw new UnsupportedOperationException();
    }
}
