package dev.cohort.toolrunner.tools;

import dev.cohort.core.protocol.Json;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.calls.Args;
import dev.cohort.toolrunner.calls.Tool;
import dev.cohort.toolrunner.workspace.ToolContext;
import dev.cohort.toolrunner.worktrees.WorktreeManager;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Set;

/** {@code create_worktree {name, base?, task_id?}}: branch {@code wt/<name>} from {@code base} (default HEAD). */
@ApplicationScoped
public class CreateWorktreeTool implements Tool {
    @Inject
    WorktreeManager worktrees;

    @Override
    public String name() {
        return "create_worktree";
    }

    @Override
    public Set<String> arguments() {
        return Set.of("name", "base", "task_id");
    }

    @Override
    public boolean isMutating() {
        return true;
    }

    @Override
    public ToolCallResult execute(ToolContext ctx, Args args) throws Exception {
        WorktreeManager.Info info = worktrees.create(ctx, args.string("name"), args.optString("base", null),
                args.optString("task_id", null));
        return ToolCallResult.ok("Created worktree '" + info.name() + "' on branch " + info.branch() + " from "
                + info.baseCommit() + "\n" + Json.write(info), 0);
    }
}
