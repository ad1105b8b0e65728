package dev.cohort.core.tools.workspace;

import dev.cohort.core.tools.ToolSchemas;

/** {@code keep_worktree}: marks an existing worktree as kept for review. Runs in the tool runner. */
public final class KeepWorktreeTool extends WorkspaceTool {
    public static final String NAME = "keep_worktree";

    public KeepWorktreeTool() {
        super(ToolSchemas.spec(NAME, "Mark an existing worktree as kept, so its work stays available for review.",
                ToolSchemas.object().addProperty("name", ToolSchemas.string("the worktree's name")).required("name").build()), true);
    }
}
