package dev.cohort.core.tools.cron;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.PermissionSubject;
import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolFailure;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.langchain4j.agent.tool.ToolSpecification;

/**
 * {@code schedule_cron} (the seed's, plus {@code timezone}): registers a job on scheduler-service for the caller's
 * team. Idempotent on (agent, call id): the request carries {@code Idempotency-Key:} {@link EffectKey#uuid()}, so a
 * repeated call (a resumed turn) gets the job the first call created, with the same text, instead of a second job.
 *
 * <p>A job runs prompts later with nobody watching, so by default a person approves each one: the call's permission
 * subject is {@link PermissionSubject.Persistent}, which the gate asks about in every mode (bypass included) and
 * denies where nobody can answer (a cron-fired turn, {@code deny-asks}), so a scheduled turn cannot schedule more
 * work on its own. {@link Approval#ALLOW} (the lead's {@code cohort.lead.model-cron-jobs=allow}) lifts the ask; the
 * scheduler's caps on jobs the model creates ({@code cohort.scheduler.model-jobs.*}) apply either way.
 */
public final class ScheduleCronTool extends SpecifiedTool {

    public static final String NAME = "schedule_cron";
    /** The rule id of the ask (and of the denial in a turn nobody watches). */
    public static final String RULE = "model-cron-job";
    /** Characters of the job's prompt the person asked sees in the reason (a full prompt is in the call's arguments). */
    static final int REASON_PROMPT = 80;

    /** Whether a job the model schedules needs a person's approval. */
    public enum Approval {
        /** Every job asks a person; denied where nobody can answer (the default). */
        ASK,
        /** Jobs are created without asking (an operator's explicit allowance). */
        ALLOW
    }

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Schedule a cron job. cron has 5 fields: minute hour day-of-month month day-of-week (standard cron: "
                    + "*/n, lists, ranges, names, @hourly/@daily/@weekly/@monthly). When it fires, prompt arrives as a "
                    + "[cron] message and you act on it without a user. A person approves each job you schedule, and the "
                    + "scheduler caps how many jobs you may keep and how often they fire; a refusal names the limit.",
            ToolSchemas.object()
                    .addProperty("cron", ToolSchemas.string("5-field cron expression, e.g. '*/2 * * * *' = every even minute"))
                    .addProperty("prompt", ToolSchemas.string("the message injected when the job fires"))
                    .addProperty("recurring", ToolSchemas.bool("true = fire on every match (default), false = fire once"))
                    .addProperty("durable", ToolSchemas.bool("true = survives scheduler restarts (default), false = session only"))
                    .addProperty("timezone", ToolSchemas.string("IANA time zone the cron is read in, e.g. Europe/Berlin (default UTC)"))
                    .required("cron", "prompt")
                    .build());

    private final SchedulerClient client;
    private final Approval approval;

    /** A tool whose jobs each need a person's approval. */
    public ScheduleCronTool(SchedulerClient client) {
        this(client, Approval.ASK);
    }

    public ScheduleCronTool(SchedulerClient client, Approval approval) {
        super(SPEC, true, LEAD_ONLY);
        this.client = client;
        this.approval = approval == null ? Approval.ASK : approval;
    }

    /** A job the model creates outlives the turn and runs unattended: a person approves it unless configured not to. */
    @Override
    public PermissionSubject permissionSubject(ObjectNode args) {
        if (approval == Approval.ALLOW) {
            return PermissionSubject.NONE;
        }
        ScheduleCronArgs a = ScheduleCronArgs.from(args, null);
        String prompt = a.prompt() == null ? "" : a.prompt().strip().replaceAll("\\s+", " ");
        if (prompt.length() > REASON_PROMPT) {
            prompt = prompt.substring(0, REASON_PROMPT) + "…";
        }
        return new PermissionSubject.Persistent(RULE, "a new " + (a.recurringOrDefault() ? "recurring" : "one-shot")
                + " cron job ('" + a.cron() + "' → " + prompt + ") that would run prompts later with nobody watching"
                + " (a person approves each job the model schedules; cohort.lead.model-cron-jobs=allow lifts this)");
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
