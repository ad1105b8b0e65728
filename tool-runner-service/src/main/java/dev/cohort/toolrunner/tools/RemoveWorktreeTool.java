package dev.cohort.toolrunner.tools;

import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.calls.Args;
import dev.cohort.toolrunner.calls.Tool;
import dev.cohort.toolrunner.workspace.ToolContext;
import dev.cohort.toolrunner.worktrees.WorktreeManager;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Set;

/** {@code remove_worktree {name, discard_changes?}}: refuses a worktree holding work unless discard_changes. */
@ApplicationScoped
public class RemoveWorktreeTool implements Tool {
    @Inject
    WorktreeManager worktrees;

    @Override
    public String name() {
        return "remove_worktree";
    }

    @Override
    public Set<String> arguments() {
        return Set.of("name", "discard_changes");
    }

    @Override
    public boolean isMutating() {
        return true;
    }

    @Override
    public ToolCallResult execute(ToolContext ctx, Args args) throws Exception {
        return ToolCallResult.ok(worktrees.remove(ctx, args.string("name"),
                Boolean.TRUE.equals(args.optBool("discard_changes"))), 0);
    }
}
