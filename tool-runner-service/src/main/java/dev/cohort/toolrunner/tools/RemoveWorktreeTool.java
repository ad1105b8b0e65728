package dev.cohort.toolrunner.tools;

import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.toolrunner.ToolDescriptor;
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

/** {@code remove_worktree {name, discard_changes?}}: refuses a worktree holding work unless discard_changes. */
@ApplicationScoped
public class RemoveWorktreeTool extends DeclaredTool {
    /** The name the model calls it by. */
    public static final String NAME = "remove_worktree";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Remove a worktree and its branch. It is refused while the worktree has "
                    + "uncommitted files or commits that are not in its base; merge them, keep_worktree it for "
                    + "review, or pass discard_changes=true to throw the work away.",
            ToolSchemas.object()
                    .addProperty("name", ToolSchemas.string("the worktree's name"))
                    .addProperty("discard_changes", ToolSchemas.bool("remove even with unmerged work (it is lost)"))
                    .required("name").build());

    public RemoveWorktreeTool() {
        super(SPEC, true, List.of(AgentRole.LEAD), ToolDescriptor.Subject.destructiveWhen("discard_changes", "discard-worktree",
                "removing worktree '{name}' and discarding its uncommitted and unmerged work"));
    }

    @Inject
    WorktreeManager worktrees;

    @Override
    public ToolCallResult execute(ToolContext ctx, Args args) throws Exception {
        return ToolCallResult.ok(worktrees.remove(ctx, args.string("name"),
                Boolean.TRUE.equals(args.optBool("discard_changes"))), 0);
    }
}
