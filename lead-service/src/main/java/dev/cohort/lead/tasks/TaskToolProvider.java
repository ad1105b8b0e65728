package dev.cohort.lead.tasks;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.host.engine.ToolProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Set;

/**
 * The task board's tools ({@code create_task} … {@code complete_task}) and the worktree tools, for the lead's engine
 * (in-process over {@code TaskService}; a teammate's come with its own board adapter).
 */
@ApplicationScoped
public class TaskToolProvider implements ToolProvider {

    @Inject
    TaskTools tasks;

    @Override
    public Set<AgentRole> roles() {
        return Set.of(AgentRole.LEAD);
    }

    @Override
    public List<Tool> tools() {
        return tasks.all();
    }
}
