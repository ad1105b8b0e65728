package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.EventType;
import java.time.Instant;

/**
 * The data of {@code task_claimed}: an agent took a task (only a fresh claim is an event, not a renewed one).
 *
 * @param id         the task id, {@code task_<n>}
 * @param subject    its one-line title
 * @param status     its status after the claim, {@code in_progress}
 * @param owner      the agent that holds it now
 * @param via        how it was claimed: {@code claim} (by id) or {@code claim-next} (the oldest free task)
 * @param leaseUntil when the claim expires unless renewed; omitted for a claim without a lease
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TaskClaimed(String id, String subject, String status, String owner, String via, Instant leaseUntil)
        implements EventPayload {

    @Override
    public EventType type() {
        return EventType.TASK_CLAIMED;
    }
}
