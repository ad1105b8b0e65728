package dev.cohort.core.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * A digest of one tool call (its tool name and arguments), so that an approval covers exactly the call it was asked
 * for: SHA-256 over the tool name and the arguments as canonical JSON (object keys sorted at every depth), so the same
 * arguments in another key order or spacing (as a database's JSON type returns them) give the same digest. Pure.
 */
public final class CallDigest {

    private CallDigest() {
    }

    /** The digest of {@code tool} called with {@code args} ({@code null} args count as {@code {}}), in hex. */
    public static String of(String tool, JsonNode args) {
        JsonNode canonical = canonical(args == null ? JsonNodeFactory.instance.objectNode() : args);
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            md.update(String.valueOf(tool).getBytes(StandardCharsets.UTF_8));
            md.update((byte) 0);
            md.update(Json.write(canonical).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** The digest of {@code tool} with arguments given as JSON text (as stored). */
    public static String of(String tool, String argsJson) {
        try {
            return of(tool, Json.MAPPER.readTree(argsJson == null ? "{}" : argsJson));
        } catch (Exception e) {
            throw new IllegalArgumentException("the stored arguments are not JSON: " + e.getMessage(), e);
        }
    }

    private static JsonNode canonical(JsonNode n) {
        if (n.isObject()) {
            List<Map.Entry<String, JsonNode>> fields = new ArrayList<>();
            n.fields().forEachRemaining(fields::add);
            fields.sort(Map.Entry.comparingByKey());
            ObjectNode out = JsonNodeFactory.instance.objectNode();
            for (Map.Entry<String, JsonNode> f : fields) {
                out.set(f.getKey(), canonical(f.getValue()));
            }
            return out;
        }
        if (n.isArray()) {
            ArrayNode out = JsonNodeFactory.instance.arrayNode();
            n.forEach(e -> out.add(canonical(e)));
            return out;
        }
        return n;
    }
}
