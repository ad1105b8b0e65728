package dev.cohort.lead.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.lead.store.ToolEffectRepository;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code create_task}: a persistent task, optionally blocked by existing tasks. Idempotent on (agent, call
 * id): a repeated call gets "Created task_N" for the task the first call made, and no second task.
 */
public final class CreateTaskTool extends SpecifiedTool {

    public static final String NAME = "create_task";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Create a new task on the team's board, optionally blocked by other tasks. Tasks persist and can be "
                    + "claimed by you or teammates (todo_write is only your own checklist). blockedBy must list ids of "
                    + "tasks that already exist, so create dependencies first and use the ids this tool returns.",
            ToolSchemas.object()
                    .addProperty("subject", ToolSchemas.string("one-line title, e.g. 'setup database schema'"))
                    .addProperty("description", ToolSchemas.string("what to do and how to know it is done"))
                    .addProperty("blockedBy", ToolSchemas.array("ids of tasks that must be completed first, e.g. ['task_1']",
                            ToolSchemas.string("a task id")))
                    .addProperty("role", ToolSchemas.string("only a teammate of this role may claim it, e.g. 'tester'"))
                    .addProperty("assignee", ToolSchemas.string("only this teammate may claim it, e.g. 'alice'"))
                    .required("subject")
                    .build());

    private final TaskService service;
    private final ToolEffectRepository effects;

    CreateTaskTool(TaskService service, ToolEffectRepository effects) {
        super(SPEC, true, LEAD_ONLY);
        this.service = service;
        this.effects = effects;
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        List<String> deps = new ArrayList<>();
        JsonNode arr = call.args().get("blockedBy");
        if (arr != null && arr.isArray()) {
            arr.forEach(n -> deps.add(n.asText()));
        }
        return TaskTools.once(effects, EffectKey.of(call, ctx), "create a task", key -> created(service.create(ctx.team(),
                ctx.agent(), call.string("subject"), call.string("description", ""), deps, call.string("role", null),
                call.string("assignee", null), ToolEffectRepository.recorder(ctx.team(), key, CreateTaskTool::created))));
    }

    private static ToolResult created(TaskRow t) {
        return ToolResult.ok("Created " + TaskIds.format(t.id()) + ": " + t.subject() + TaskTools.deps(t)
                + (t.role() == null ? "" : " (role: " + t.role() + ")")
                + (t.assignee() == null ? "" : " (assignee: " + t.assignee() + ")"));
    }
}
