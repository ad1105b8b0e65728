package dev.cohort.core.protocol.payload;

import dev.cohort.core.protocol.EventType;

/**
 * The data of {@code background_started}: the tool runner started a background job for an agent.
 *
 * @param id      the job id, {@code bg_<id>}
 * @param callId  the tool call that started it
 * @param command the command it runs
 */
public record BackgroundStarted(String id, String callId, String command) implements EventPayload {

    @Override
    public EventType type() {
        return EventType.BACKGROUND_STARTED;
    }
}
