package dev.cohort.scheduler.messaging;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.PromptRecord;
import dev.cohort.core.protocol.PromptSource;
import dev.cohort.core.protocol.Topics;
import dev.cohort.scheduler.service.CronJob;
import dev.cohort.scheduler.service.Firing;
import java.util.LinkedHashMap;
import java.util.Map;

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
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("source", PromptSource.CRON);
        metadata.put("cronJobId", job.id());
        metadata.put("dueAt", f.dueAt().toString());
        metadata.put("catchUp", f.catchUp());
        AgentMessage m = new AgentMessage(f.messageId(), job.team(), SENDER, job.target(), MessageType.MESSAGE,
                "[cron] " + job.prompt(), metadata, f.firedAt());
        return new Out(Topics.TEAMMATE_INBOX, m.key(), Json.write(m));
    }

    /**
     * The {@code cron_fired} event on {@link Topics#EVENTS}, keyed by team. Published unsequenced ({@code seq = 0}):
     * lead-service's event store assigns the per-team sequence number.
     */
    public static Out event(Firing f) {
        CronJob job = f.job();
        ObjectNode data = Event.newData();
        data.put("jobId", job.id());
        data.put("cron", job.cron());
        data.put("timezone", job.timezone());
        data.put("target", job.target());
        data.put("dueAt", f.dueAt().toString());
        data.put("catchUp", f.catchUp());
        if (f.missedSince() != null) {
            data.put("missedSince", f.missedSince().toString());
        }
        data.put("recurring", job.recurring());
        data.put("messageId", f.messageId());
        String prompt = job.prompt();
        data.put("prompt", prompt.length() <= PROMPT_PREVIEW ? prompt : prompt.substring(0, PROMPT_PREVIEW) + "…");
        Event e = new Event(f.eventId(), job.team(), job.target(), 0, f.firedAt(), EventType.CRON_FIRED, data);
        return new Out(Topics.EVENTS, job.team(), Json.write(e));
    }
}
