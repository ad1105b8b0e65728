package dev.cohort.core.tools.todo;

import dev.cohort.core.tools.ToolEffect;
import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code todo_write}: replaces this agent's whole todo list. All-or-nothing: an invalid list (missing content,
 * unknown status, more than one {@code in_progress}) changes nothing and tells the model every problem.
 */
public final class TodoWriteTool extends SpecifiedTool {
    public static final String NAME = "todo_write";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Create and update your todo list for the current work: send the WHOLE list each time. Plan multi-step "
                    + "work before starting, keep exactly one item in_progress while working, mark items completed "
                    + "as soon as they are done.",
            ToolSchemas.object().addProperty("todos", ToolSchemas.array("the complete list, in order",
                    ToolSchemas.object()
                            .addProperty("content", ToolSchemas.string("what to do, one short sentence"))
                            .addProperty("status", ToolSchemas.enumOf("state of the item",
                                    List.of(TodoItem.PENDING, TodoItem.IN_PROGRESS, TodoItem.COMPLETED)))
                            .required("content", "status").build()))
                    .required("todos").build());

    public TodoWriteTool() {
        super(SPEC, false); // only the agent's own plan changes, never the workspace
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        List<TodoItem> items = new ArrayList<>();
        for (JsonNode n : call.args().path("todos")) {
            items.add(new TodoItem(n.path("content").asText(null), n.path("status").asText(null)));
        }
        List<String> problems = TodoList.problems(items);
        if (!problems.isEmpty()) {
            return ToolResult.error("todo-validation", "todo list not updated: " + String.join("; ", problems));
        }
        ctx.todos().replace(items);
        long done = items.stream().filter(t -> !t.unfinished()).count();
        return ToolResult.ok("Updated " + items.size() + " todos (" + done + " completed):\n" + ctx.todos().render())
                .with(new ToolEffect.TodosChanged());
    }
}
