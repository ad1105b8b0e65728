package dev.cohort.core.tools;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import dev.langchain4j.model.chat.request.json.JsonAnyOfSchema;
import dev.langchain4j.model.chat.request.json.JsonArraySchema;
import dev.langchain4j.model.chat.request.json.JsonBooleanSchema;
import dev.langchain4j.model.chat.request.json.JsonEnumSchema;
import dev.langchain4j.model.chat.request.json.JsonIntegerSchema;
import dev.langchain4j.model.chat.request.json.JsonNullSchema;
import dev.langchain4j.model.chat.request.json.JsonNumberSchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonSchemaElement;
import dev.langchain4j.model.chat.request.json.JsonStringSchema;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Parses a model's raw tool-call arguments and checks them against the tool's schema (like XAgent's
 * FORMAT_ERROR): malformed JSON, a non-object, a missing required argument, a wrong type, a value outside an enum
 * or an unknown argument all become one model-visible message listing every problem. Pure.
 */
public final class ToolArguments {
    private ToolArguments() {
    }

    /** The outcome: the parsed object, or the problems. */
    public record Parsed(ObjectNode args, List<String> problems) {
        public boolean ok() {
            return problems.isEmpty();
        }
    }

    /** Parses {@code raw} ({@code null} or blank means no arguments) and validates it against {@code schema}. */
    public static Parsed parse(String raw, JsonObjectSchema schema) {
        ObjectNode args;
        if (raw == null || raw.isBlank()) {
            args = Json.MAPPER.createObjectNode();
        } else {
            JsonNode node;
            try {
                node = Json.MAPPER.readTree(raw);
            } catch (JsonProcessingException e) {
                return new Parsed(null, List.of("arguments are not valid JSON (" + e.getOriginalMessage()
                        + "); send one JSON object"));
            }
            if (node == null || node.isNull()) {
                node = Json.MAPPER.createObjectNode();
            }
            if (!node.isObject()) {
                return new Parsed(null, List.of("arguments must be a JSON object, got " + kind(node)));
            }
            args = (ObjectNode) node;
        }
        List<String> problems = new ArrayList<>();
        if (schema != null) {
            checkObject("", args, schema, problems);
        }
        return new Parsed(args, List.copyOf(problems));
    }

    private static void checkObject(String path, JsonNode value, JsonObjectSchema schema, List<String> problems) {
        Map<String, JsonSchemaElement> props = schema.properties() == null ? Map.of() : schema.properties();
        if (schema.required() != null) {
            for (String r : schema.required()) {
                JsonNode v = value.get(r);
                if (v == null || v.isNull()) {
                    problems.add("missing required argument '" + path + r + "'");
                }
            }
        }
        Iterator<Map.Entry<String, JsonNode>> it = value.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> f = it.next();
            JsonSchemaElement el = props.get(f.getKey());
            if (el == null) {
                if (!props.isEmpty() && !Boolean.TRUE.equals(schema.additionalProperties())) {
                    problems.add("unknown argument '" + path + f.getKey() + "'; accepted: " + new TreeSet<>(props.keySet()));
                }
                continue;
            }
            if (f.getValue().isNull() && (schema.required() == null || !schema.required().contains(f.getKey()))) {
                continue; // an explicit null for an optional argument means "not given"
            }
            check(path + f.getKey(), f.getValue(), el, problems);
        }
    }

    private static void check(String path, JsonNode v, JsonSchemaElement el, List<String> problems) {
        switch (el) {
            case JsonStringSchema s -> {
                if (!v.isTextual()) {
                    problems.add("argument '" + path + "' must be a string, got " + kind(v));
                }
            }
            case JsonIntegerSchema s -> {
                if (!(v.isIntegralNumber() || v.isNumber() && v.asDouble() == Math.rint(v.asDouble()))) {
                    problems.add("argument '" + path + "' must be an integer, got " + kind(v));
                }
            }
            case JsonNumberSchema s -> {
                if (!v.isNumber()) {
                    problems.add("argument '" + path + "' must be a number, got " + kind(v));
                }
            }
            case JsonBooleanSchema s -> {
                if (!v.isBoolean()) {
                    problems.add("argument '" + path + "' must be true or false, got " + kind(v));
                }
            }
            case JsonEnumSchema s -> {
                if (!v.isTextual() || !s.enumValues().contains(v.asText())) {
                    problems.add("argument '" + path + "' must be one of " + s.enumValues() + ", got " + v);
                }
            }
            case JsonArraySchema s -> {
                if (!v.isArray()) {
                    problems.add("argument '" + path + "' must be an array, got " + kind(v));
                } else if (s.items() != null) {
                    for (int i = 0; i < v.size(); i++) {
                        check(path + "[" + i + "]", v.get(i), s.items(), problems);
                    }
                }
            }
            case JsonObjectSchema s -> {
                if (!v.isObject()) {
                    problems.add("argument '" + path + "' must be an object, got " + kind(v));
                } else {
                    checkObject(path + ".", v, s, problems);
                }
            }
            case JsonAnyOfSchema s -> {
                boolean any = false;
                for (JsonSchemaElement alt : s.anyOf()) {
                    List<String> p = new ArrayList<>();
                    check(path, v, alt, p);
                    any |= p.isEmpty();
                }
                if (!any) {
                    problems.add("argument '" + path + "' matches none of the allowed forms");
                }
            }
            case JsonNullSchema s -> {
                if (!v.isNull()) {
                    problems.add("argument '" + path + "' must be null");
                }
            }
            default -> {
                // references and raw schemas are not checked here; the tool checks them itself
            }
        }
    }

    private static String kind(JsonNode v) {
        if (v.isTextual()) {
            return "a string";
        }
        if (v.isNumber()) {
            return "a number";
        }
        if (v.isBoolean()) {
            return "a boolean";
        }
        if (v.isArray()) {
            return "an array";
        }
        if (v.isObject()) {
            return "an object";
        }
        return "null";
    }
}
