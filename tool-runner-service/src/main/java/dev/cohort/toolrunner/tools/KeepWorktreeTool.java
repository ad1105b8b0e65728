package dev.cohort.toolrunner.tools;

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

/** {@code keep_worktree {name}}: marks an existing worktree as kept for review. */
@ApplicationScoped
public class KeepWorktreeTool extends DeclaredTool {
    /** The name the model calls it by. */
    public static final String NAME = "keep_worktree";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Mark an existing worktree as kept, so its work stays available for review.",
            ToolSchemas.object()
                    .addProperty("name", ToolSchemas.string("the worktree's name"))
                    .required("name").build());

    public KeepWorktreeTool() {
        super(SPEC, true, List.of(AgentRole.LEAD));
    }

    @Inject
    WorktreeManager worktrees;

    @Override
    public ToolCallResult execute(ToolContext ctx, Args args) throws Exception {
        return ToolCallResult.ok(worktrees.keep(ctx, args.string("name")), 0);
    }
}
