package dev.cohort.scheduler.firing;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.payload.CronFired;
import dev.cohort.core.protocol.payload.CronFiring;
import dev.cohort.core.protocol.PromptRecord;
import dev.cohort.core.protocol.PromptSource;
import dev.cohort.core.protocol.Topics;
import dev.cohort.scheduler.jobs.CronJob;

/** The Kafka records of a firing, built from core's protocol types (nothing here defines a schema of its own). */
public final class FiringRecords {

    /** The sender of teammate messages: the scheduler acts as the host of the firing. */
    public static final String SENDER = "scheduler";
    /** Events carry at most this much of the prompt, enough to recognise it in a stream. */
    private static final int PROMPT_PREVIEW = 200;

    private FiringRecords() {
    }

    /** A topic, key and JSON value. */
    public record Out(String topic, String key, String value) {
    }

    /**
     * The wake-up record: a prompt on {@link Topics#PROMPTS} keyed by team for the lead (lead-service shows it as
     * {@code [cron] <prompt>} because {@code source} is {@code cron}), or an agent message on
     * {@link Topics#TEAMMATE_INBOX} keyed {@code <team>/<name>} for a teammate, its content prefixed {@code [cron]}.
     */
    public static Out wakeUp(Firing f) {
        CronJob job = f.job();
        if (Ids.LEAD.equals(job.target())) {
            PromptRecord p = new PromptRecord(f.messageId(), job.team(), job.prompt(), PromptSource.CRON, f.idempotencyKey(),
                    job.id());
            return new Out(Topics.PROMPTS, job.team(), Json.write(p));
        }
        AgentMessage m = AgentMessage.of(f.messageId(), job.team(), SENDER, job.target(), "[cron] " + job.prompt(),
                CronFiring.of(job.id(), f.dueAt(), f.catchUp()), f.firedAt());
        return new Out(Topics.TEAMMATE_INBOX, m.key(), Json.write(m));
    }

    /**
     * The {@code cron_fired} event on {@link Topics#EVENTS}, keyed by team. Published unsequenced ({@code seq = 0}):
     * lead-service's event store assigns the per-team sequence number.
     */
    public static Out event(Firing f) {
        CronJob job = f.job();
        String prompt = job.prompt();
        CronFired fired = new CronFired(job.id(), job.cron(), job.timezone(), job.target(), f.dueAt(), f.catchUp(),
                f.missedSince(), job.recurring(), f.messageId(),
                prompt.length() <= PROMPT_PREVIEW ? prompt : prompt.substring(0, PROMPT_PREVIEW) + "…");
        Event fresh = Event.of(job.team(), job.target(), fired);
        // the id derived from (job, occurrence) and the firing time: a re-fired occurrence is the same event
        Event e = new Event(f.eventId(), fresh.team(), fresh.agent(), 0, f.firedAt(), fresh.type(), fresh.data());
        return new Out(Topics.EVENTS, job.team(), Json.write(e));
    }
}
