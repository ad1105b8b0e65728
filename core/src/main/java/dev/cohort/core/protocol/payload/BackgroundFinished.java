package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.EventType;

/**
 * The data of {@code background_finished}: a background job ended. {@code exitCode} and {@code durationMs} are
 * always on the wire, {@code null} when unknown (the event has carried them so since it exists).
 *
 * @param id         the job id, {@code bg_<id>}
 * @param status     {@code completed}, {@code failed}, {@code timed_out} or {@code cancelled}
 * @param exitCode   the process's exit code; {@code null} when it was killed or never started
 * @param durationMs how long it ran; {@code null} when unknown (e.g. found dead after a restart)
 */
public record BackgroundFinished(String id, String status,
        @JsonInclude(JsonInclude.Include.ALWAYS) Integer exitCode,
        @JsonInclude(JsonInclude.Include.ALWAYS) Long durationMs) implements EventPayload {

    @Override
    public EventType type() {
        return EventType.BACKGROUND_FINISHED;
    }
}
