package dev.cohort.core.tools.cron;

import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolFailure;
import dev.cohort.core.tools.ToolInfrastructureException;
import dev.cohort.core.tools.ToolResult;
import java.util.List;
import java.util.function.Supplier;

/**
 * The lead's cron tools over one {@link SchedulerClient}, and the texts they show the model. A scheduler
 * refusal becomes a model-visible error naming the scheduler's rule ({@code scheduler:invalid-cron}, …); the scheduler
 * being down after the client's retries ends the turn ({@link ToolInfrastructureException}). Each tool returns a refusal
 * as an error result itself.
 */
public final class CronTools {

    /** The list shows this much of each prompt, as the seed does. */
    static final int PROMPT_PREVIEW = 40;

    private CronTools() {
    }

    /** {@code schedule_cron} (each job asks a person), {@code list_crons}, {@code cancel_cron}, over {@code client}. */
    public static List<Tool> all(SchedulerClient client) {
        return all(client, ScheduleCronTool.Approval.ASK);
    }

    /** The three tools; {@code approval} says whether a job {@code schedule_cron} creates needs a person's approval. */
    public static List<Tool> all(SchedulerClient client, ScheduleCronTool.Approval approval) {
        return List.of(new ScheduleCronTool(client, approval), new ListCronsTool(client), new CancelCronTool(client));
    }

    /** The scheduler's problem slug for an {@code Idempotency-Key} sent again with a different request. */
    static final String KEY_REUSED = "idempotency-key-reused";

    /**
     * The model-visible result of a scheduler refusal of a keyed call: the scheduler's {@code idempotency-key-reused}
     * becomes the same "call id reused" error every idempotent tool gives; any other refusal is shown as it is.
     */
    static ToolResult refusal(ToolFailure f, EffectKey key) {
        return ("scheduler:" + KEY_REUSED).equals(f.rule()) ? key.reused(null) : f.toResult();
    }

    /** Runs a call on the scheduler, mapping its failures to the two kinds of tool failure. */
    static <T> T call(String what, Supplier<T> call) {
        try {
            return call.get();
        } catch (SchedulerClient.Refused r) {
            throw new ToolFailure("scheduler:" + r.slug(), r.getMessage());
        } catch (SchedulerClient.Unavailable u) {
            throw new ToolInfrastructureException("cannot " + what + ": " + u.getMessage(), u);
        }
    }

    /** {@code  cron_x: '*}{@code /2 * * * *' → prompt… [recurring, durable] next 2025-06-02T10:06:00Z (UTC)}. */
    static String line(CronJobInfo j) {
        String prompt = j.prompt() == null ? "" : j.prompt();
        String preview = prompt.length() <= PROMPT_PREVIEW ? prompt : prompt.substring(0, PROMPT_PREVIEW) + "…";
        String target = j.target() == null || "lead".equals(j.target()) ? "" : " to " + j.target();
        return "  " + j.id() + ": '" + j.cron() + "'" + target + " → " + preview + " [" + (j.recurring() ? "recurring" : "one-shot")
                + ", " + (j.durable() ? "durable" : "session") + "] next " + j.nextFireAt() + " (" + j.timezone() + ")";
    }
}
