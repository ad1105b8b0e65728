package dev.cohort.core.tools.cron;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Arguments of {@code schedule_cron} (the seed's, plus {@code timezone}), also the body of
 * {@code POST /api/v1/teams/{team}/crons}. Defaults as in the seed's handler: recurring and durable true; timezone UTC
 * (the scheduler's default). The cron expression itself is validated by the scheduler, which owns the semantics.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ScheduleCronArgs(String cron, String prompt, Boolean recurring, Boolean durable, String timezone,
        String createdBy) {

    /** Reads the tool-call arguments (already schema-checked for types); throws nothing, see {@link #problems()}. */
    public static ScheduleCronArgs from(ObjectNode args, String createdBy) {
        return new ScheduleCronArgs(text(args, "cron"), text(args, "prompt"), bool(args, "recurring"),
                bool(args, "durable"), text(args, "timezone"), createdBy);
    }

    /** What is wrong before asking the scheduler (empty when nothing): blank cron or prompt. */
    public List<String> problems() {
        List<String> p = new ArrayList<>();
        if (cron == null || cron.isBlank()) {
            p.add("cron is required: 5 fields 'minute hour day-of-month month day-of-week', e.g. '*/2 * * * *'");
        }
        if (prompt == null || prompt.isBlank()) {
            p.add("prompt is required: the message injected when the job fires");
        }
        return p;
    }

    public boolean recurringOrDefault() {
        return recurring == null || recurring;
    }

    public boolean durableOrDefault() {
        return durable == null || durable;
    }

    private static String text(ObjectNode args, String key) {
        JsonNode n = args == null ? null : args.get(key);
        return n == null || n.isNull() ? null : n.asText();
    }

    private static Boolean bool(ObjectNode args, String key) {
        JsonNode n = args == null ? null : args.get(key);
        return n == null || n.isNull() ? null : n.asBoolean();
    }
}
