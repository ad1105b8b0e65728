package dev.cohort.toolrunner.tools;

import dev.cohort.core.protocol.Json;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.calls.Args;
import dev.cohort.toolrunner.calls.Tool;
import dev.cohort.toolrunner.workspace.ToolContext;
import dev.cohort.toolrunner.worktrees.WorktreeManager;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Set;

/** {@code list_worktrees {}}: the team's worktrees as JSON (name, branch, base, cwd, status, task). */
@ApplicationScoped
public class ListWorktreesTool implements Tool {
    @Inject
    WorktreeManager worktrees;

    @Override
    public String name() {
        return "list_worktrees";
    }

    @Override
    public Set<String> arguments() {
        return Set.of();
    }

    @Override
    public boolean isMutating() {
        return false;
    }

    @Override
    public ToolCallResult execute(ToolContext ctx, Args args) throws Exception {
        List<WorktreeManager.Info> all = worktrees.list(ctx);
        return ToolCallResult.ok(all.isEmpty() ? "(no worktrees)" : Json.write(all), 0);
    }
}
