package dev.cohort.core.tools.workspace;

import dev.cohort.core.tools.PermissionSubject;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.tools.ToolSchemas;

/**
 * {@code remove_worktree}: removes a worktree and its branch; refuses one with uncommitted files or commits not
 * in its base unless {@code discard_changes} is true. Runs in the tool runner.
 */
public class RemoveWorktreeTool extends WorkspaceTool {
    public static final String NAME = "remove_worktree";

    public RemoveWorktreeTool() {
        super(ToolSchemas.spec(NAME, "Remove a worktree and its branch. It is refused while the worktree has "
                        + "uncommitted files or commits that are not in its base; merge them, keep_worktree it for "
                        + "review, or pass discard_changes=true to throw the work away.",
                ToolSchemas.object()
                        .addProperty("name", ToolSchemas.string("the worktree's name"))
                        .addProperty("discard_changes", ToolSchemas.bool("remove even with unmerged work (it is lost)"))
                        .required("name").build()), true);
    }

    /** Discarding a worktree's unmerged work is destructive: it asks. */
    @Override
    public PermissionSubject permissionSubject(ObjectNode args) {
        return args.path("discard_changes").asBoolean(false)
                ? new PermissionSubject.Destructive("discard-worktree", "removing worktree '" + args.path("name").asText()
                        + "' and discarding its uncommitted and unmerged work")
                : PermissionSubject.NONE;
    }
}
