package dev.cohort.core.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;

/**
 * A tool call as the engine executes it: the model's call id, the tool name and the parsed, schema-checked
 * arguments (always a JSON object).
 *
 * @param id   the model's tool-call id (unique per agent), also the tool runner's idempotency key
 * @param name the tool name
 * @param args the arguments object
 */
public record ToolCall(String id, String name, ObjectNode args) {

    public ToolCall {
        args = args == null ? Json.MAPPER.createObjectNode() : args;
    }

    /** A required string argument (validation has already checked presence and type). */
    public String string(String key) {
        JsonNode n = args.get(key);
        return n == null || n.isNull() ? null : n.asText();
    }

    /** An optional string argument. */
    public String string(String key, String fallback) {
        String v = string(key);
        return v == null ? fallback : v;
    }

    /** An optional integer argument. */
    public Integer integer(String key) {
        JsonNode n = args.get(key);
        return n == null || n.isNull() ? null : n.asInt();
    }

    /** An optional boolean argument. */
    public boolean flag(String key) {
        JsonNode n = args.get(key);
        return n != null && n.asBoolean(false);
    }
}
