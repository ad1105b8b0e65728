package dev.cohort.lead.tasks;

import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.ForwardingTool;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.lead.store.ToolEffectRepository;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code remove_worktree} that respects the board: a worktree whose task is being worked on is not
 * pulled from under its holder, and once a worktree is gone no task stays bound to it (a later claimer would be sent
 * into a missing directory). Idempotent on (agent, call id): the removal is the tool runner's (answered from its call
 * record), the unbinding records the whole result in its transaction, so a repeat gets the first text, "Unbound:" line
 * included.
 */
final class BoundRemoveWorktreeTool extends ForwardingTool {
    private final TaskService service;
    private final ToolEffectRepository effects;

    /** Wraps the tool runner's {@code remove_worktree}. */
    BoundRemoveWorktreeTool(Tool runnerTool, TaskService service, ToolEffectRepository effects) {
        super(runnerTool);
        this.service = service;
        this.effects = effects;
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        return TaskTools.once(effects, EffectKey.of(call, ctx), "unbind the worktree's tasks",
                key -> removeOnce(call, ctx, key));
    }

    private ToolResult removeOnce(ToolCall call, ToolContext ctx, EffectKey key) {
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
        return unbound(removed, service.unbindWorktree(ctx.team(), name,
                ToolEffectRepository.recorder(ctx.team(), key, tasks -> unbound(removed, tasks))));
    }

    private static ToolResult unbound(ToolResult removed, List<TaskRow> unbound) {
        return unbound.isEmpty() ? removed
                : ToolResult.ok(removed.content() + "\nUnbound: " + TaskTools.labels(unbound) + ".");
    }
}
