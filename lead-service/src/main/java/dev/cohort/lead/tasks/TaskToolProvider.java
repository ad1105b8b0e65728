package dev.cohort.lead.tasks;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.host.engine.RoleTools;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The task board's tools ({@code create_task} … {@code complete_task}) for the lead's engine, and the tool runner's
 * {@code create_worktree} and {@code remove_worktree} bound to the board (in-process over {@code TaskService}; a
 * teammate's come with its own board adapter).
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

    @Override
    public Map<String, UnaryOperator<Tool>> wraps() {
        return tasks.worktreeBindings();
    }
}
