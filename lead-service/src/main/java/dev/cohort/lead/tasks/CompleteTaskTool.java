package dev.cohort.lead.tasks;

import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.lead.store.ToolEffectRepository;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.List;

/**
 * {@code complete_task}: only the holder completes; the result names exactly the tasks this
 * completion unblocked, i.e. dependants of this task whose last unfinished dependency it was.
 * Idempotent on (agent, call id): a repeated call gets the first result, with the tasks it unblocked then, not "was
 * already completed by you".
 */
public final class CompleteTaskTool extends SpecifiedTool {

    public static final String NAME = "complete_task";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Complete an in_progress task you hold, and report which tasks this unblocked.",
            ToolSchemas.object().addProperty("task_id", ToolSchemas.string("the task id, e.g. task_1"))
                    .required("task_id").build());

    private final TaskService service;
    private final ToolEffectRepository effects;

    CompleteTaskTool(TaskService service, ToolEffectRepository effects) {
        super(SPEC, true);
        this.service = service;
        this.effects = effects;
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        return TaskTools.once(effects, EffectKey.of(call, ctx), "complete a task", key -> {
            TaskService.Completion c = service.complete(ctx.team(), call.string("task_id"), Holder.byName(ctx.agent()), null,
                    ToolEffectRepository.recorder(ctx.team(), key, done -> completed(done.task(), done.unblocked())));
            if (c.repeated()) {
                return ToolResult.ok(label(c.task()) + " was already completed by you");
            }
            return completed(c.task(), c.unblocked());
        });
    }

    private static ToolResult completed(TaskRow task, List<TaskRow> unblocked) {
        return ToolResult.ok("Completed " + label(task)
                + (unblocked.isEmpty() ? "" : "\nUnblocked: " + TaskTools.labels(unblocked)));
    }

    private static String label(TaskRow task) {
        return TaskIds.format(task.id()) + " (" + task.subject() + ")";
    }
}
