package dev.cohort.core.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.internal.JsonSchemaElementUtils;
import dev.langchain4j.model.chat.request.json.JsonArraySchema;
import dev.langchain4j.model.chat.request.json.JsonBooleanSchema;
import dev.langchain4j.model.chat.request.json.JsonEnumSchema;
import dev.langchain4j.model.chat.request.json.JsonIntegerSchema;
import dev.langchain4j.model.chat.request.json.JsonNumberSchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonSchemaElement;
import dev.langchain4j.model.chat.request.json.JsonStringSchema;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Small helpers to write tool specs with a description on every parameter, and to carry a parameter schema as JSON
 * (the tool runner's catalogue) and back.
 */
public final class ToolSchemas {
    private ToolSchemas() {
    }

    public static ToolSpecification spec(String name, String description, JsonObjectSchema parameters) {
        return ToolSpecification.builder().name(name).description(description).parameters(parameters).build();
    }

    public static JsonObjectSchema.Builder object() {
        return JsonObjectSchema.builder();
    }

    public static JsonSchemaElement string(String description) {
        return JsonStringSchema.builder().description(description).build();
    }

    public static JsonSchemaElement integer(String description) {
        return JsonIntegerSchema.builder().description(description).build();
    }

    public static JsonSchemaElement bool(String description) {
        return JsonBooleanSchema.builder().description(description).build();
    }

    public static JsonSchemaElement enumOf(String description, List<String> values) {
        return JsonEnumSchema.builder().description(description).enumValues(values).build();
    }

    public static JsonSchemaElement array(String description, JsonSchemaElement items) {
        return JsonArraySchema.builder().description(description).items(items).build();
    }

    /** {@code schema} as a JSON schema tree, as it is sent to a model. */
    public static JsonNode toJson(JsonObjectSchema schema) {
        return Json.MAPPER.valueToTree(JsonSchemaElementUtils.toMap(schema));
    }

    /**
     * The parameter schema a JSON schema tree describes ({@link #toJson}'s inverse for the types, descriptions,
     * enums, items, properties and required lists that tool specs use).
     *
     * @throws IllegalArgumentException when {@code json} is not an object schema or uses a type this does not read
     */
    public static JsonObjectSchema objectFromJson(JsonNode json) {
        if (fromJson(json, "parameters") instanceof JsonObjectSchema o) {
            return o;
        }
        throw new IllegalArgumentException("parameters: not an object schema: " + json);
    }

    private static JsonSchemaElement fromJson(JsonNode json, String where) {
        if (json == null || !json.isObject()) {
            throw new IllegalArgumentException(where + ": a schema must be a JSON object, not " + json);
        }
        String description = json.hasNonNull("description") ? json.get("description").asText() : null;
        if (json.has("enum")) {
            List<String> values = new ArrayList<>();
            json.get("enum").forEach(v -> values.add(v.asText()));
            return JsonEnumSchema.builder().description(description).enumValues(values).build();
        }
        String type = json.path("type").asText("");
        return switch (type) {
            case "string" -> JsonStringSchema.builder().description(description).build();
            case "integer" -> JsonIntegerSchema.builder().description(description).build();
            case "number" -> JsonNumberSchema.builder().description(description).build();
            case "boolean" -> JsonBooleanSchema.builder().description(description).build();
            case "array" -> JsonArraySchema.builder().description(description)
                    .items(fromJson(json.get("items"), where + ".items")).build();
            case "object" -> {
                JsonObjectSchema.Builder b = JsonObjectSchema.builder().description(description);
                JsonNode props = json.path("properties");
                for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext();) {
                    Map.Entry<String, JsonNode> p = it.next();
                    b.addProperty(p.getKey(), fromJson(p.getValue(), where + "." + p.getKey()));
                }
                List<String> required = new ArrayList<>();
                json.path("required").forEach(r -> required.add(r.asText()));
                if (!required.isEmpty()) {
                    b.required(required);
                }
                if (json.has("additionalProperties")) {
                    b.additionalProperties(json.get("additionalProperties").asBoolean());
                }
                yield b.build();
            }
            default -> throw new IllegalArgumentException(where + ": schema type '" + type + "' is not supported");
        };
    }
}
