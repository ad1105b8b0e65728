package dev.cohort.devstack.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * One chat-completions request as the scripted model saw it: {@code agent} is the request's {@code user} field,
 * {@code call} its 1-based number for that agent, {@code rule} the answering rule's name (null if unnamed or none).
 */
public record RecordedRequest(
        long seq, Instant time, String agent, int call, String model, JsonNode body, String rule, int status) {

    /** JSON form served by {@code GET /__admin/requests}; time is ISO-8601 so no Jackson time module is needed. */
    public ObjectNode toJson() {
        ObjectNode node = Json.MAPPER.createObjectNode();
        node.put("seq", seq);
        node.put("time", time.toString());
        node.put("agent", agent);
        node.put("call", call);
        node.put("model", model);
        node.set("body", body);
        node.put("rule", rule);
        node.put("status", status);
        return node;
    }
}
