package dev.cohort.lead.tasks;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.langchain4j.agent.tool.ToolSpecification;

/** {@code get_task}: one task's full details as indented JSON. */
public final class GetTaskTool extends SpecifiedTool {

    public static final String NAME = "get_task";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME, "Get the full details of a task by id.",
            ToolSchemas.object().addProperty("task_id", ToolSchemas.string("the task id, e.g. task_1"))
                    .required("task_id").build());

    private final TaskService service;

    GetTaskTool(TaskService service) {
        super(SPEC, false);
        this.service = service;
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        return TaskTools.run("read a task", () -> {
            TaskView v = TaskView.of(service.get(ctx.team(), call.string("task_id")));
            try {
                return ToolResult.ok(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(v));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("cannot render task " + v.id(), e);
            }
        });
    }
}
