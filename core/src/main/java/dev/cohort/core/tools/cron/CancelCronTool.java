package dev.cohort.core.tools.cron;

import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolFailure;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.langchain4j.agent.tool.ToolSpecification;

/**
 * {@code cancel_cron}: cancels a job of the caller's team; it never fires again. Idempotent on (agent, call
 * id) through the scheduler's {@code Idempotency-Key}: a repeated call (a resumed turn) is answered "Cancelled" as the
 * first was, not "no cron job".
 */
public final class CancelCronTool extends SpecifiedTool {

    public static final String NAME = "cancel_cron";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME, "Cancel a cron job by ID (see list_crons).",
            ToolSchemas.object().addProperty("job_id", ToolSchemas.string("the job id, e.g. cron_ab12cd34ef56"))
                    .required("job_id").build());

    private final SchedulerClient client;

    public CancelCronTool(SchedulerClient client) {
        super(SPEC, true, LEAD_ONLY);
        this.client = client;
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        String id = call.string("job_id");
        if (id == null || id.isBlank()) {
            return ToolResult.error("arguments", "job_id is required");
        }
        EffectKey key = EffectKey.of(call, ctx);
        boolean cancelled;
        try {
            cancelled = CronTools.call("cancel a cron job", () -> client.cancel(ctx.team(), id.strip(),
                    key.uuid().toString()));
        } catch (ToolFailure f) {
            return CronTools.refusal(f, key);
        }
        if (!cancelled) {
            return ToolResult.error("not-found", "no cron job '" + id.strip() + "' in team " + ctx.team()
                    + "; list_crons shows the ids");
        }
        return ToolResult.ok("Cancelled " + id.strip());
    }
}
