package dev.cohort.core.llm;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cohort.core.engine.Message;
import dev.cohort.core.engine.ModelClient;
import dev.cohort.core.engine.ModelToolCall;
import dev.cohort.core.engine.recovery.MalformedModelResponse;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.openai.internal.OpenAiUtils;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The OpenAI chat-completions wire format, written and read directly from the engine's types: the
 * request is streamed by Jackson's generator from the engine's {@link Message}s, with no langchain4j message, DTO or
 * tree in between (the whole conversation was converted twice and serialised every round); the tool schemas are
 * serialised once per tool set ({@link ToolSchemas}) and copied in raw. The request is the one langchain4j's
 * {@code OpenAiChatModel} sent for the same call (same fields and values: {@code ChatCompletionsWireTest} compares
 * them), so providers see no change.
 */
public final class ChatCompletionsWire {

    /** Not null-valued fields, as langchain4j's own mapper writes its DTOs (a null means "provider default"). */
    private static final ObjectMapper DTO_JSON = new ObjectMapper()
            .setSerializationInclusion(JsonInclude.Include.NON_NULL);
    private static final JsonFactory FACTORY = DTO_JSON.getFactory();

    private ChatCompletionsWire() {
    }

    /**
     * The request body of one call.
     *
     * @param model           the model name on the wire
     * @param user            the OpenAI {@code user} (the agent id)
     * @param system          the system prompt, omitted when null or empty
     * @param messages        the conversation
     * @param toolsJson       the {@code tools} array from {@link #tools}, or null for none
     * @param maxOutputTokens {@code max_tokens}, or null for the provider's default
     */
    public static byte[] request(String model, String user, String system, List<Message> messages, String toolsJson,
            Integer maxOutputTokens) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(sizeHint(system, messages, toolsJson));
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("model", model);
            g.writeArrayFieldStart("messages");
            if (system != null && !system.isEmpty()) {
                g.writeStartObject();
                g.writeStringField("role", "system");
                g.writeStringField("content", system);
                g.writeEndObject();
            }
            for (Message m : messages) {
                message(g, m);
            }
            g.writeEndArray();
            g.writeBooleanField("stream", false); // langchain4j sent it; some gateways default to streaming without it
            if (maxOutputTokens != null) {
                g.writeNumberField("max_tokens", maxOutputTokens);
            }
            if (user != null) {
                g.writeStringField("user", user);
            }
            if (toolsJson != null) {
                g.writeFieldName("tools");
                g.writeRawValue(toolsJson);
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail; a broken generator would
        }
        return out.toByteArray();
    }

    /**
     * About the body's size: the texts, the calls' arguments and the tools, plus room for the JSON around them (the
     * buffer grows by doubling if escapes or multi-byte characters make it longer). A fixed guess per message sized
     * a conversation of many short messages at several times its body, which was most of the lead's allocations.
     */
    static int sizeHint(String system, List<Message> messages, String toolsJson) {
        long n = 1024 + (system == null ? 0 : system.length()) + (toolsJson == null ? 0 : toolsJson.length());
        for (Message m : messages) {
            n += 48 + (m.content() == null ? 0 : m.content().length())
                    + (m.toolCallId() == null ? 0 : m.toolCallId().length());
            for (var c : m.toolCalls()) {
                n += 96 + (c.arguments() == null ? 0 : c.arguments().length()) + (c.id() == null ? 0 : c.id().length());
            }
        }
        return (int) Math.min(n + n / 16, Integer.MAX_VALUE - 16);
    }

    /** One message as langchain4j wrote it: text contents as strings, a null text as "" except beside tool calls. */
    private static void message(JsonGenerator g, Message m) throws IOException {
        g.writeStartObject();
        switch (m.role()) {
            case USER -> {
                g.writeStringField("role", "user");
                g.writeStringField("content", m.content() == null ? "" : m.content());
            }
            case TOOL -> {
                g.writeStringField("role", "tool");
                g.writeStringField("tool_call_id", m.toolCallId());
                g.writeStringField("content", m.content() == null ? "" : m.content());
            }
            case ASSISTANT -> {
                g.writeStringField("role", "assistant");
                if (!m.hasToolCalls()) {
                    g.writeStringField("content", m.content() == null ? "" : m.content());
                } else {
                    if (m.content() != null && !m.content().isEmpty()) {
                        g.writeStringField("content", m.content());
                    }
                    g.writeArrayFieldStart("tool_calls");
                    for (ModelToolCall c : m.toolCalls()) {
                        g.writeStartObject();
                        g.writeStringField("id", c.id());
                        g.writeStringField("type", "function");
                        g.writeObjectFieldStart("function");
                        g.writeStringField("name", c.name());
                        g.writeStringField("arguments", c.arguments() == null ? "{}" : c.arguments());
                        g.writeEndObject();
                        g.writeEndObject();
                    }
                    g.writeEndArray();
                }
            }
        }
        g.writeEndObject();
    }

    /**
     * The {@code tools} array of a tool set, as langchain4j's {@code OpenAiChatModel} writes it (non-strict function
     * tools; its own schema mapping, so every schema element it supports keeps its exact form), or null for none.
     */
    public static String tools(List<ToolSpecification> specs) {
        if (specs == null || specs.isEmpty()) {
            return null;
        }
        try {
            return DTO_JSON.writeValueAsString(OpenAiUtils.toTools(specs, false));
        } catch (IOException e) {
            throw new IllegalArgumentException("a tool specification cannot be written as JSON: " + e.getMessage(), e);
        }
    }

    /**
     * The engine's reply from a 200 answer's body: the first choice's text and tool calls, the finish reason (mapped
     * as langchain4j did: an unknown or missing one counts as {@code stop}, or {@code tool_calls} when there are
     * calls), {@code usage} with {@code prompt_tokens_details.cached_tokens}, and the answering model.
     *
     * @throws MalformedModelResponse when the body is not JSON, has no choice, or its choice has no message
     */
    public static ModelClient.Reply reply(byte[] body) {
        JsonNode root;
        try {
            root = DTO_JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw new MalformedModelResponse("the model's answer is not a usable chat completion: it is not JSON ("
                    + e.getOriginalMessage() + ")", e);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // reading a byte array does not fail
        }
        JsonNode choices = root == null ? null : root.get("choices");
        if (choices == null || !choices.isArray() || choices.isEmpty()) {
            throw new MalformedModelResponse("the model's answer is not a usable chat completion: a field the answer "
                    + "must have is missing (choices)", null);
        }
        JsonNode choice = choices.get(0);
        JsonNode message = choice.get("message");
        if (message == null || !message.isObject()) {
            throw new MalformedModelResponse("the model's answer is not a usable chat completion: a field the answer "
                    + "must have is missing (choices[0].message)", null);
        }
        List<ModelToolCall> calls = new ArrayList<>();
        JsonNode toolCalls = message.get("tool_calls");
        if (toolCalls != null && toolCalls.isArray()) {
            for (JsonNode t : toolCalls) {
                JsonNode fn = t.path("function");
                calls.add(new ModelToolCall(text(t.get("id")), text(fn.get("name")), arguments(fn.get("arguments"))));
            }
        } else if (message.path("function_call").isObject()) { // the legacy single call, as langchain4j read it
            JsonNode fn = message.get("function_call");
            calls.add(new ModelToolCall(null, text(fn.get("name")), arguments(fn.get("arguments"))));
        }
        String finish = switch (String.valueOf(text(choice.get("finish_reason")))) {
            case "stop" -> "stop";
            case "length" -> "length";
            case "tool_calls", "function_call" -> "tool_calls";
            case "content_filter" -> "content_filter";
            default -> calls.isEmpty() ? "stop" : "tool_calls";
        };
        JsonNode usage = root.path("usage");
        return new ModelClient.Reply(text(message.get("content")), calls, finish,
                usage.path("prompt_tokens").asLong(0), usage.path("completion_tokens").asLong(0),
                text(root.get("model")), usage.path("prompt_tokens_details").path("cached_tokens").asLong(0));
    }

    private static String text(JsonNode n) {
        return n == null || n.isNull() ? null : n.asText();
    }

    /** Arguments are a JSON string on the wire; a provider that sends an object gets it back as its JSON text. */
    private static String arguments(JsonNode n) {
        return n == null || n.isNull() ? null : n.isTextual() ? n.asText() : n.toString();
    }
}
