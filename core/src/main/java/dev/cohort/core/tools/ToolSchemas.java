package dev.cohort.core.tools;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonArraySchema;
import dev.langchain4j.model.chat.request.json.JsonBooleanSchema;
import dev.langchain4j.model.chat.request.json.JsonEnumSchema;
import dev.langchain4j.model.chat.request.json.JsonIntegerSchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonSchemaElement;
import dev.langchain4j.model.chat.request.json.JsonStringSchema;
import java.util.List;

/** Small helpers to write tool specs with a description on every parameter (the seed has none). */
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
}
