package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.EventType;
import java.time.Instant;

/**
 * The data of {@code cron_fired}: the scheduler fired one occurrence of a cron job.
 *
 * @param jobId       the cron job's id
 * @param cron        its cron expression
 * @param timezone    the time zone the expression is matched in
 * @param target      the agent woken: {@code lead} or a teammate name
 * @param dueAt       the occurrence fired
 * @param catchUp     whether this is a late catch-up for a missed occurrence
 * @param missedSince the first missed occurrence; omitted when none was missed
 * @param recurring   whether the job fires again (a one-shot job is removed once fired)
 * @param messageId   the id of the prompt or agent message the firing published
 * @param prompt      the job's prompt, cut to a preview (ending in {@code …} when cut)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CronFired(String jobId, String cron, String timezone, String target, Instant dueAt, boolean catchUp,
        Instant missedSince, boolean recurring, String messageId, String prompt) implements EventPayload {

    @Override
    public EventType type() {
        return EventType.CRON_FIRED;
    }
}
