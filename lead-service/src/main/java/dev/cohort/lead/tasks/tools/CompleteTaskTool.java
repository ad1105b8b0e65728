package dev.cohort.lead.tasks.tools;

import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.lead.tasks.service.Holder;
import dev.cohort.lead.tasks.service.TaskIds;
import dev.cohort.lead.tasks.service.TaskService;
import dev.langchain4j.agent.tool.ToolSpecification;

/**
 * {@code complete_task} (seed s12): only the holder completes (gap 13); the result names exactly the tasks this
 * completion unblocked, i.e. dependants of this task whose last unfinished dependency it was (gaps 24, 40).
 */
public final class CompleteTaskTool extends SpecifiedTool {

    public static final String NAME = "complete_task";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Complete an in_progress task you hold, and report which tasks this unblocked.",
            ToolSchemas.object().addProperty("task_id", ToolSchemas.string("the task id, e.g. task_1"))
                    .required("task_id").build());

    private final TaskService service;

    CompleteTaskTool(TaskService service) {
        super(SPEC, true);
        this.service = service;
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        return TaskTools.run("complete a task", () -> {
            TaskService.Completion c = service.complete(ctx.team(), call.string("task_id"), Holder.byName(ctx.agent()), null);
            String label = TaskIds.format(c.task().id()) + " (" + c.task().subject() + ")";
            if (c.repeated()) {
                return ToolResult.ok(label + " was already completed by you");
            }
            return ToolResult.ok("Completed " + label
                    + (c.unblocked().isEmpty() ? "" : "\nUnblocked: " + TaskTools.labels(c.unblocked())));
        });
    }
}
