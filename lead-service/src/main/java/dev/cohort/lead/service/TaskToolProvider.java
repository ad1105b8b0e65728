package dev.cohort.lead.service;

import dev.cohort.core.tools.Tool;
import dev.cohort.lead.tasks.tools.TaskTools;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;

/** The task board's tools ({@code create_task} … {@code complete_task}) and the worktree tools, for the lead's registry. */
@ApplicationScoped
public class TaskToolProvider implements LeadEngine.LeadToolProvider {

    @Inject
    TaskTools tasks;

    @Override
    public List<Tool> tools() {
        return tasks.all();
    }
}
