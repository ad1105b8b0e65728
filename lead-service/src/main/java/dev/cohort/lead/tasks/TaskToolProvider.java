package dev.cohort.lead.tasks;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.host.engine.RoleTools;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;

/**
 * The task board's tools ({@code create_task} … {@code complete_task}) and the worktree tools, for the lead's engine
 * (in-process over {@code TaskService}; a teammate's come with its own board adapter).
 */
@ApplicationScoped
public class TaskToolProvider extends RoleTools {

    @Inject
    TaskTools tasks;

    TaskToolProvider() {
        super(100, AgentRole.LEAD);
    }

    @Override
    public List<Tool> tools() {
        return tasks.all();
    }
}
