package dev.cohort.core.engine;

import dev.cohort.core.protocol.Event;

/** Where the engine reports what happens (a host publishes to {@code cohort.events}). Must not block for long. */
@FunctionalInterface
public interface EventSink {
    EventSink NONE = e -> {
    };

    void emit(Event event);
}
