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
 * {@code schedule_cron} (seed s14, plus {@code timezone}): registers a job on scheduler-service for the caller's team.
 * Idempotent on (agent, call id): the request carries {@code Idempotency-Key:} {@link EffectKey#uuid()}, so a repeated
 * call (a resumed turn) gets the job the first call created, with the same text, instead of a second job.
 */
public final class ScheduleCronTool extends SpecifiedTool {

    public static final String NAME = "schedule_cron";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Schedule a cron job. cron has 5 fields: minute hour day-of-month month day-of-week (standard cron: "
                    + "*/n, lists, ranges, names, @hourly/@daily/@weekly/@monthly). When it fires, prompt arrives as a "
                    + "[cron] message and you act on it without a user.",
            ToolSchemas.object()
                    .addProperty("cron", ToolSchemas.string("5-field cron expression, e.g. '*/2 * * * *' = every even minute"))
                    .addProperty("prompt", ToolSchemas.string("the message injected when the job fires"))
                    .addProperty("recurring", ToolSchemas.bool("true = fire on every match (default), false = fire once"))
                    .addProperty("durable", ToolSchemas.bool("true = survives scheduler restarts (default), false = session only"))
                    .addProperty("timezone", ToolSchemas.string("IANA time zone the cron is read in, e.g. Europe/Berlin (default UTC)"))
                    .required("cron", "prompt")
                    .build());

    private final SchedulerClient client;

    public ScheduleCronTool(SchedulerClient client) {
        super(SPEC, true);
        this.client = client;
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        // identity from the host: the job belongs to the caller's team and records who created it
        ScheduleCronArgs args = ScheduleCronArgs.from(call.args(), ctx.agentId());
        if (!args.problems().isEmpty()) {
            return ToolResult.error("arguments", String.join("; ", args.problems()));
        }
        EffectKey key = EffectKey.of(call, ctx);
        CronJobInfo job;
        try {
            job = CronTools.call("schedule a cron job", () -> client.schedule(ctx.team(), args, key.uuid().toString()));
        } catch (ToolFailure f) {
            return CronTools.refusal(f, key);
        }
        StringBuilder sb = new StringBuilder("Scheduled ").append(job.id()).append(": '").append(job.cron()).append("' → ")
                .append(job.prompt()).append(" [").append(job.recurring() ? "recurring" : "one-shot").append(", ")
                .append(job.durable() ? "durable" : "session").append(", ").append(job.timezone()).append("]; next firing ")
                .append(job.nextFireAt());
        if (job.note() != null) {
            sb.append("\nNote: ").append(job.note());
        }
        return ToolResult.ok(sb.toString());
    }
}
