package dev.cohort.lead.tasks;

import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.List;
import java.util.stream.Collectors;

/** {@code list_tasks}: the team's board in creation order, one line per task. */
public final class ListTasksTool extends SpecifiedTool {

    public static final String NAME = "list_tasks";
    /** What the model sees on an empty board (seed: "no tasks; use create_task to add"). */
    public static final String EMPTY = "No tasks. Use create_task to add one.";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "List all tasks of the team with status, owner, dependencies and whether a pending task is ready to claim.",
            ToolSchemas.object().build());

    private final TaskService service;

    ListTasksTool(TaskService service) {
        super(SPEC, false);
        this.service = service;
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        return TaskTools.run("list tasks", () -> {
            List<TaskRow> tasks = service.list(ctx.team());
            return ToolResult.ok(tasks.isEmpty() ? EMPTY
                    : tasks.stream().map(TaskTools::line).collect(Collectors.joining("\n")));
        });
    }
}
