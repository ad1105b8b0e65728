package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.ProtocolException;
import java.util.Map;

/**
 * The typed {@code metadata} of one agent-message type (ARCHITECTURE §4.2). On the wire the metadata stays a plain
 * JSON object: {@link #toMap} writes a record as that object, {@link #from} reads one back (fields it does not know
 * are ignored, absent ones are {@code null} or {@code false}), so records written before these types existed parse.
 */
public sealed interface MessageMetadata permits CronFiring, BackgroundDone, ShutdownRequest, ShutdownResponse,
        PlanApprovalRequest, PlanApprovalResponse, TaskAvailable, Spawn, Control, TeammateResult {

    /** The message type this metadata belongs to. */
    @JsonIgnore
    MessageType type();

    /** The record as the {@code metadata} object of an agent message (absent fields omitted). */
    static Map<String, Object> toMap(MessageMetadata metadata) {
        return Json.MAPPER.convertValue(metadata, new TypeReference<Map<String, Object>>() { });
    }

    /**
     * Reads a {@code metadata} object as {@code type}; a value of the wrong kind (e.g. {@code "approve":"maybe"}) is a
     * {@link ProtocolException} naming the record.
     */
    static <T extends MessageMetadata> T from(Map<String, ?> metadata, Class<T> type) {
        try {
            return Json.MAPPER.convertValue(metadata == null ? Map.of() : metadata, type);
        } catch (IllegalArgumentException e) {
            throw new ProtocolException("metadata is not a valid " + type.getSimpleName() + ": "
                    + e.getMessage().lines().findFirst().orElse(""), e);
        }
    }
}
