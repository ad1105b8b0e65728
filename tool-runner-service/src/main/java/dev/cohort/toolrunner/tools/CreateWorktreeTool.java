package dev.cohort.toolrunner.tools;

import dev.cohort.core.protocol.Json;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.toolrunner.calls.Args;
import dev.cohort.toolrunner.calls.DeclaredTool;
import dev.cohort.toolrunner.workspace.ToolContext;
import dev.cohort.toolrunner.worktrees.WorktreeManager;
import dev.langchain4j.agent.tool.ToolSpecification;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;

/** {@code create_worktree {name, base?, task_id?}}: branch {@code wt/<name>} from {@code base} (default HEAD). */
@ApplicationScoped
public class CreateWorktreeTool extends DeclaredTool {
    /** The name the model calls it by. */
    public static final String NAME = "create_worktree";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Create an isolated git worktree (branch wt/<name>, its own directory) so a "
                    + "parallel track of work cannot overwrite another. Give task_id to bind it to a task: whoever "
                    + "works on that task works in this worktree.",
            ToolSchemas.object()
                    .addProperty("name", ToolSchemas.string("1-64 letters, digits, '.', '_' or '-', e.g. 'auth-refactor'"))
                    .addProperty("base", ToolSchemas.string("commit or branch to start from (default: HEAD)"))
                    .addProperty("task_id", ToolSchemas.string("a task of the board to bind it to, e.g. 'task_3'"))
                    .required("name").build());

    public CreateWorktreeTool() {
        super(SPEC, true, List.of(AgentRole.LEAD));
    }

    @Inject
    WorktreeManager worktrees;

    @Override
    public ToolCallResult execute(ToolContext ctx, Args args) throws Exception {
        WorktreeManager.Info info = worktrees.create(ctx, args.string("name"), args.optString("base", null),
                args.optString("task_id", null));
        return ToolCallResult.ok("Created worktree '" + info.name() + "' on branch " + info.branch() + " from "
                + info.baseCommit() + "\n" + Json.write(info), 0);
    }
}
