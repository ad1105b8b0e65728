package dev.cohort.lead.tasks;

import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.ForwardingTool;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.lead.store.ToolEffectRepository;

/**
 * {@code create_worktree} with its {@code task_id} bound on the board. Unlike the seed, the task is checked
 * <b>before</b> the worktree is made, so a wrong id leaves no orphan worktree behind; the worktree itself is made by
 * the tool runner, which also records the task id in its worktree events. With a {@code task_id} the call is
 * idempotent on (agent, call id): the worktree is the tool runner's (answered from its call record), the binding
 * records the whole result in its transaction, so a repeat gets the first text and does not bind again.
 */
final class BoundCreateWorktreeTool extends ForwardingTool {
    private final TaskService service;
    private final ToolEffectRepository effects;

    /** Wraps the tool runner's {@code create_worktree}. */
    BoundCreateWorktreeTool(Tool runnerTool, TaskService service, ToolEffectRepository effects) {
        super(runnerTool);
        this.service = service;
        this.effects = effects;
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        String taskId = call.string("task_id", "").strip();
        if (taskId.isEmpty()) {
            return super.execute(call, ctx);
        }
        return TaskTools.once(effects, EffectKey.of(call, ctx), "bind the task to the worktree", key -> {
            ToolResult missing = TaskTools.run("read a task", () -> {
                service.get(ctx.team(), taskId);
                return null;
            });
            if (missing != null) {
                return missing;
            }
            ToolResult made = super.execute(call, ctx);
            if (made.error()) {
                return made;
            }
            return bound(made, service.bindWorktree(ctx.team(), taskId, call.string("name"),
                    ToolEffectRepository.recorder(ctx.team(), key, t -> bound(made, t))));
        });
    }

    private static ToolResult bound(ToolResult made, TaskRow t) {
        return ToolResult.ok(made.content() + "\nBound " + TaskIds.format(t.id()) + " (" + t.subject()
                + ") to worktree " + t.worktree() + ".");
    }
}
