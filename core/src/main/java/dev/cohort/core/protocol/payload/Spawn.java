package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.MessageType;

/**
 * The metadata of {@code spawn} (ARCHITECTURE §4.3 {@code spawn_teammate}): the lead starts a teammate, named by the
 * message's {@code to}.
 *
 * @param role     the teammate's role, part of its system prompt
 * @param prompt   what its first turn runs
 * @param planMode whether its mutating tools are gated until a plan is approved; absent reads as {@code false}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Spawn(String role, String prompt, boolean planMode) implements MessageMetadata {

    @Override
    public MessageType type() {
        return MessageType.SPAWN;
    }
}
