package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.MessageType;

/**
 * The metadata of {@code shutdown_response}: a teammate's answer to a {@link ShutdownRequest}.
 *
 * @param requestId the id of the request answered
 * @param approve   whether the teammate stops; an absent {@code approve} reads as {@code false}, as in the seed
 * @param reason    why it refused or what it finished first; omitted when none
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ShutdownResponse(String requestId, boolean approve, String reason) implements MessageMetadata {

    @Override
    public MessageType type() {
        return MessageType.SHUTDOWN_RESPONSE;
    }
}
