package dev.cohort.core.protocol.payload;

import dev.cohort.core.protocol.EventType;
import java.util.List;

/**
 * The data of {@code task_completed}: the holder finished a task, which may unblock others.
 *
 * @param id        the task id, {@code task_<n>}
 * @param subject   its one-line title
 * @param status    its status, {@code completed}
 * @param owner     the agent that completed it
 * @param unblocked exactly the tasks this completion made claimable, maybe empty
 */
public record TaskCompleted(String id, String subject, String status, String owner, List<Unblocked> unblocked)
        implements EventPayload {

    public TaskCompleted {
        unblocked = unblocked == null ? List.of() : List.copyOf(unblocked);
    }

    /**
     * A task a completion unblocked.
     *
     * @param id      its id, {@code task_<n>}
     * @param subject its one-line title
     */
    public record Unblocked(String id, String subject) {
    }

    @Override
    public EventType type() {
        return EventType.TASK_COMPLETED;
    }
}
