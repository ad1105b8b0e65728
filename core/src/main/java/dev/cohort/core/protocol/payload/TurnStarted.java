package dev.cohort.core.protocol.payload;

import dev.cohort.core.protocol.EventType;

/**
 * {@code turn_started}: a turn began.
 *
 * @param turnId the turn
 * @param source where its input came from ({@code http}, {@code cli}, {@code cron}, {@code inbox}, …)
 */
public record TurnStarted(String turnId, String source) implements EventPayload {
    @Override
    public EventType type() {
        return EventType.TURN_STARTED;
    }
}
