package dev.cohort.lead.tasks;

import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.lead.store.ToolEffectRepository;
import dev.langchain4j.agent.tool.ToolSpecification;

/**
 * {@code claim_task}: the caller becomes the owner and the task goes in_progress. Refused, naming the
 * reason, when the task is blocked (its unfinished dependencies), held by someone else (the holder) or completed.
 * There is no {@code owner} argument: the owner is the calling agent. Idempotent on (agent, call id): a
 * repeated call gets the first result ("Claimed …"), not "You already hold …" or, if the lease has run out since,
 * another agent's claim.
 */
public final class ClaimTaskTool extends SpecifiedTool {

    public static final String NAME = "claim_task";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Claim a pending task: you become its owner and it goes in_progress. Refused if its dependencies are not "
                    + "all completed or someone else holds it.",
            ToolSchemas.object().addProperty("task_id", ToolSchemas.string("the task id, e.g. task_1"))
                    .required("task_id").build());

    private final TaskService service;
    private final ToolEffectRepository effects;

    ClaimTaskTool(TaskService service, ToolEffectRepository effects) {
        super(SPEC, true);
        this.service = service;
        this.effects = effects;
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        return TaskTools.once(effects, EffectKey.of(call, ctx), "claim a task", key -> {
            TaskService.Claim c = service.claim(ctx.team(), call.string("task_id"), Holder.byName(ctx.agent()),
                    TaskTools.leaseMs(ctx, service),
                    ToolEffectRepository.recorder(ctx.team(), key, claimed -> claimed(claimed.task(), claimed.fresh())));
            return claimed(c.task(), c.fresh());
        });
    }

    private static ToolResult claimed(TaskRow task, boolean fresh) {
        String label = TaskIds.format(task.id()) + " (" + task.subject() + ")";
        return ToolResult.ok(fresh ? "Claimed " + label + " → in_progress, owner " + task.owner()
                : "You already hold " + label + " (in_progress)");
    }
}
