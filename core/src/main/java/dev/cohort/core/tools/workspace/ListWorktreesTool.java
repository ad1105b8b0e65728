package dev.cohort.core.tools.workspace;

import dev.cohort.core.tools.ToolSchemas;

/** {@code list_worktrees}: the team's worktrees with branch, base commit, status and task. Runs in the tool runner. */
public final class ListWorktreesTool extends WorkspaceTool {
    public static final String NAME = "list_worktrees";

    public ListWorktreesTool() {
        super(ToolSchemas.spec(NAME, "List the team's worktrees: name, branch, base commit, status (active, kept, "
                + "missing) and bound task.", ToolSchemas.object().build()), false);
    }
}
