package dev.cohort.lead.tasks.tools;

import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.workspace.RemoveWorktreeTool;
import dev.cohort.lead.tasks.persistence.TaskRow;
import dev.cohort.lead.tasks.service.TaskService;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code remove_worktree} that respects the board (s18 gap 43): a worktree whose task is being worked on is not
 * pulled from under its holder, and once a worktree is gone no task stays bound to it (a later claimer would be sent
 * into a missing directory).
 */
final class BoundRemoveWorktreeTool extends RemoveWorktreeTool {
    private final TaskService service;

    BoundRemoveWorktreeTool(TaskService service) {
        this.service = service;
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        String name = call.string("name");
        ToolResult busy = TaskTools.run("read the tasks of the worktree", () -> {
            List<TaskRow> held = service.inWorktree(ctx.team(), name).stream()
                    .filter(t -> TaskRow.IN_PROGRESS.equals(t.effectiveStatus())).toList();
            return held.isEmpty() ? null : ToolResult.error("worktree-in-use", "worktree '" + name
                    + "' is in use: " + TaskTools.labels(held) + " " + (held.size() == 1 ? "is" : "are")
                    + " in progress there (held by " + held.stream().map(TaskRow::effectiveOwner).distinct()
                            .collect(Collectors.joining(", "))
                    + "). Let the work be completed or released first.");
        });
        if (busy != null) {
            return busy;
        }
        ToolResult removed = super.execute(call, ctx);
        if (removed.error()) {
            return removed;
        }
        return TaskTools.run("unbind the worktree's tasks", () -> {
            List<TaskRow> unbound = service.unbindWorktree(ctx.team(), name);
            return unbound.isEmpty() ? removed
                    : ToolResult.ok(removed.content() + "\nUnbound: " + TaskTools.labels(unbound) + ".");
        });
    }
}
