package dev.cohort.core.protocol.payload;

import dev.cohort.core.protocol.EventType;

/**
 * The data of the {@code error} event the memory manager emits when its background work after a turn fails (the
 * turn itself is unaffected): {@code {"message"}}.
 *
 * @param message what failed, e.g. {@code memory extraction failed: <exception>}
 */
public record MemoryError(String message) implements EventPayload {

    @Override
    public EventType type() {
        return EventType.ERROR;
    }
}
