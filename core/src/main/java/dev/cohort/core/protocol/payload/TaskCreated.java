package dev.cohort.core.protocol.payload;

import dev.cohort.core.protocol.EventType;
import java.util.List;

/**
 * The data of {@code task_created}: a task was added to the team's board.
 *
 * @param id          the task id, {@code task_<n>}
 * @param subject     its one-line title
 * @param status      its status, {@code pending} for a new task
 * @param description its details (empty when none were given)
 * @param blockedBy   the ids ({@code task_<n>}) of the tasks it waits for, maybe empty
 * @param createdBy   the agent that created it
 */
public record TaskCreated(String id, String subject, String status, String description, List<String> blockedBy,
        String createdBy) implements EventPayload {

    public TaskCreated {
        blockedBy = blockedBy == null ? List.of() : List.copyOf(blockedBy);
    }

    @Override
    public EventType type() {
        return EventType.TASK_CREATED;
    }
}
