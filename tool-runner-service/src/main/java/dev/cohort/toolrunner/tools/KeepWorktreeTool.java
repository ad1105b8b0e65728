package dev.cohort.toolrunner.tools;

import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.calls.Args;
import dev.cohort.toolrunner.calls.Tool;
import dev.cohort.toolrunner.workspace.ToolContext;
import dev.cohort.toolrunner.worktrees.WorktreeManager;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Set;

/** {@code keep_worktree {name}}: marks an existing worktree as kept for review. */
@ApplicationScoped
public class KeepWorktreeTool implements Tool {
    @Inject
    WorktreeManager worktrees;

    @Override
    public String name() {
        return "keep_worktree";
    }

    @Override
    public Set<String> arguments() {
        return Set.of("name");
    }

    @Override
    public boolean isMutating() {
        return true;
    }

    @Override
    public ToolCallResult execute(ToolContext ctx, Args args) throws Exception {
        return ToolCallResult.ok(worktrees.keep(ctx, args.string("name")), 0);
    }
}
