package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.MessageType;

/**
 * The metadata of {@code shutdown_request}: the lead asks a teammate to stop gracefully.
 *
 * @param requestId the new request's id; the {@link ShutdownResponse} carries it back
 * @param reason    why, as given to {@code request_shutdown}; omitted when none was given
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ShutdownRequest(String requestId, String reason) implements MessageMetadata {

    @Override
    public MessageType type() {
        return MessageType.SHUTDOWN_REQUEST;
    }
}
