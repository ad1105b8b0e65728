package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.EventType;

/**
 * The data of {@code teammate_spawned}: a teammate replica created (or restarted) a teammate from a {@code spawn}.
 *
 * @param name      the teammate's name
 * @param role      its role
 * @param planMode  whether its mutating tools wait for an approved plan
 * @param restarted {@code true} when a shut-down teammate of that name was restarted (its history is kept)
 * @param replica   the teammate-service replica hosting it
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TeammateSpawned(String name, String role, boolean planMode, boolean restarted, String replica)
        implements EventPayload {

    @Override
    public EventType type() {
        return EventType.TEAMMATE_SPAWNED;
    }
}
