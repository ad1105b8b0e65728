package dev.cohort.core.tools.workspace;

import dev.cohort.core.tools.ToolSchemas;

/**
 * {@code create_worktree}: a git worktree on its own branch {@code wt/<name>}, in a directory outside the main
 * working tree, from a recorded base commit; optionally bound to a task of the board. Runs in the tool runner.
 */
public class CreateWorktreeTool extends WorkspaceTool {
    public static final String NAME = "create_worktree";

    public CreateWorktreeTool() {
        super(ToolSchemas.spec(NAME, "Create an isolated git worktree (branch wt/<name>, its own directory) so a "
                        + "parallel track of work cannot overwrite another. Give task_id to bind it to a task: whoever "
                        + "works on that task works in this worktree.",
                ToolSchemas.object()
                        .addProperty("name", ToolSchemas.string("1-64 letters, digits, '.', '_' or '-', e.g. 'auth-refactor'"))
                        .addProperty("base", ToolSchemas.string("commit or branch to start from (default: HEAD)"))
                        .addProperty("task_id", ToolSchemas.string("a task of the board to bind it to, e.g. 'task_3'"))
                        .required("name").build()), true);
    }
}
