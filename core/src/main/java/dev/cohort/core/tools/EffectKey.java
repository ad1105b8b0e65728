package dev.cohort.core.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The idempotency key of one side-effecting tool call: the agent ({@code <team>/<name>}) and the model's call id,
 * which is unique within the agent's conversation. A turn resumed after a crash (or a partition move) between a
 * tool's effect and the save of its result repeats the same call with the same id and arguments; a tool that has an
 * effect outside the tool runner records its first result under this key, in the same transaction as the effect, and
 * answers the repeat from that record instead of acting twice.
 *
 * <p>{@code digest} fingerprints the tool name and the canonical arguments (object keys sorted), so the same key with
 * a different request is recognised and refused ({@link #reused}) rather than answered with a result that belongs to
 * another call.
 *
 * @param agentId the calling agent, from the host ({@link ToolContext#agentId()}), never from arguments
 * @param callId  the model's tool-call id ({@link ToolCall#id()})
 * @param tool    the tool name
 * @param digest  SHA-256 (hex) of the tool name and the canonical arguments
 */
public record EffectKey(String agentId, String callId, String tool, String digest) {

    /** The rule named by {@link #reused}: one call id, two different calls. */
    public static final String REUSED_RULE = "idempotency:call-id-reused";

    public EffectKey {
        if (agentId == null || agentId.isBlank() || callId == null || callId.isBlank()) {
            throw new IllegalArgumentException("an effect key needs an agent id and a call id");
        }
    }

    /** The key of {@code call} made by the context's agent. */
    public static EffectKey of(ToolCall call, ToolContext ctx) {
        return new EffectKey(ctx.agentId(), call.id(), call.name(), digest(call.name(), call.args()));
    }

    /**
     * The key as one value for the wire or a table: a name-based UUID of {@code agentId + "/" + callId} (as approval
     * ids are derived), so every replica computes the same value for the same call.
     */
    public UUID uuid() {
        return UUID.nameUUIDFromBytes((agentId + "/" + callId).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * What to record for this call's first result. Only a successful result is recorded: by the tool contract an
     * error result changed nothing, so a repeat of it may simply run again.
     */
    public EffectRecord record(ToolResult result) {
        return new EffectRecord(tool, digest, result.content());
    }

    /**
     * The answer to a repeat of a recorded call: its first result when the repeat asks for the same thing, the
     * {@link #reused} error when the recorded call was another tool or had other arguments.
     */
    public ToolResult replay(EffectRecord recorded) {
        if (!tool.equals(recorded.tool()) || !digest.equals(recorded.digest())) {
            return reused(recorded.tool());
        }
        return ToolResult.ok(recorded.result());
    }

    /**
     * A model-visible error for a call id that this agent already used for a different call ({@code firstTool}, or
     * the same tool with other arguments; {@code null} when the record does not say): nothing was done, and the first
     * call's result stands.
     */
    public ToolResult reused(String firstTool) {
        String first = firstTool == null ? "" : firstTool.equals(tool) ? " (" + tool + " with other arguments)"
                : " (" + firstTool + ")";
        return ToolResult.error(REUSED_RULE, "call id '" + callId + "' was already used by " + agentId + " for a different "
                + "call" + first + "; this " + tool + " call was not run. A call id names exactly one call: issue "
                + "this call again as a new call");
    }

    /** SHA-256 (hex) of {@code tool}, a newline and the arguments as JSON with every object's keys sorted. */
    public static String digest(String tool, ObjectNode args) {
        String canonical = tool + "\n" + Json.write(canonical(args == null ? Json.MAPPER.createObjectNode() : args));
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(canonical.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** {@code node} with object keys sorted at every level (arrays keep their order: it is meaningful). */
    private static JsonNode canonical(JsonNode node) {
        if (node.isObject()) {
            Map<String, JsonNode> sorted = new TreeMap<>();
            Iterator<Map.Entry<String, JsonNode>> it = node.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> f = it.next();
                sorted.put(f.getKey(), canonical(f.getValue()));
            }
            ObjectNode out = Json.MAPPER.createObjectNode();
            sorted.forEach(out::set);
            return out;
        }
        if (node.isArray()) {
            ArrayNode out = Json.MAPPER.createArrayNode();
            node.forEach(n -> out.add(canonical(n)));
            return out;
        }
        return node;
    }
}
