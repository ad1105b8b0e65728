package dev.cohort.core.protocol.payload;

import dev.cohort.core.protocol.EventType;
import java.util.List;

/**
 * {@code todo_updated}: the agent replaced its todo list.
 *
 * @param turnId the turn
 * @param todos  the whole list, in order
 */
public record TodoUpdated(String turnId, List<Item> todos) implements EventPayload {
    @Override
    public EventType type() {
        return EventType.TODO_UPDATED;
    }

    /**
     * @param content what to do
     * @param status  {@code pending}, {@code in_progress} or {@code completed}
     */
    public record Item(String content, String status) {
    }
}
