package dev.cohort.core.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;

/**
 * A prompt for a team's lead on {@link Topics#PROMPTS}: {@code {"team","text","source","id"}}.
 * {@code idempotencyKey} and {@code cronJobId} are optional extensions; unknown fields are ignored.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PromptRecord(String id, String team, String text, String source, String idempotencyKey, String cronJobId) {

    public PromptRecord(String id, String team, String text, String source) {
        this(id, team, text, source, null, null);
    }

    /**
     * Reads a record value from {@link Topics#PROMPTS}: a JSON object, or plain text with the team as key
     * (ARCHITECTURE §4.2: any Kafka client may produce there). Throws {@link ProtocolException} naming the problem.
     *
     * @param key the record key (the team id), may be null
     * @param value the record value as UTF-8 text
     */
    public static PromptRecord fromRecord(String key, String value) {
        if (value == null || value.isBlank()) {
            throw new ProtocolException("empty prompt record (key=" + key + ")");
        }
        String trimmed = value.strip();
        if (trimmed.startsWith("{")) {
            JsonNode node;
            try {
                node = Json.MAPPER.readTree(trimmed);
            } catch (IOException e) {
                throw new ProtocolException("prompt record is not valid JSON: " + e.getMessage().lines().findFirst().orElse(""), e);
            }
            String team = text(node, "team");
            if (team == null) {
                team = key;
            }
            String text = text(node, "text");
            if (text == null || text.isBlank()) {
                throw new ProtocolException("prompt record has no \"text\"");
            }
            String source = text(node, "source");
            return validated(new PromptRecord(text(node, "id"), team, text, source == null ? PromptSource.KAFKA : source,
                    text(node, "idempotencyKey"), text(node, "cronJobId")), key);
        }
        if (trimmed.startsWith("[") || trimmed.startsWith("\"")) {
            throw new ProtocolException("prompt record must be a JSON object or plain text, got a JSON "
                    + (trimmed.startsWith("[") ? "array" : "string"));
        }
        if (key == null) {
            throw new ProtocolException("plain-text prompt record needs the team id as its key");
        }
        return validated(new PromptRecord(null, key, value, PromptSource.KAFKA, null, null), key);
    }

    private static PromptRecord validated(PromptRecord r, String key) {
        if (r.team() == null) {
            throw new ProtocolException("prompt record names no team (no \"team\" field and no key)");
        }
        if (!Ids.isTeam(r.team())) {
            throw new ProtocolException("invalid team id \"" + r.team() + "\": must match " + Ids.TEAM.pattern());
        }
        if (key != null && !key.equals(r.team())) {
            throw new ProtocolException("record key \"" + key + "\" differs from team \"" + r.team() + "\"");
        }
        return r;
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isValueNode()) {
            throw new ProtocolException("prompt field \"" + field + "\" must be a string");
        }
        return v.asText();
    }

    /** This record with an id: the given one if absent (the Kafka coordinates make redelivery harmless). */
    public PromptRecord withIdIfAbsent(String fallbackId) {
        return id != null ? this : new PromptRecord(fallbackId, team, text, source, idempotencyKey, cronJobId);
    }
}
