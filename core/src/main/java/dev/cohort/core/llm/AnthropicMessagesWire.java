package dev.cohort.core.llm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.engine.Message;
import dev.cohort.core.engine.ModelClient;
import dev.cohort.core.engine.ModelToolCall;
import dev.cohort.core.engine.recovery.MalformedModelResponse;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.tools.ToolSchemas;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Anthropic's Messages API wire format ({@code POST /v1/messages}), written and read from the engine's types.
 *
 * <p>The engine's conversation maps onto it as follows:
 * <ul>
 * <li>the system prompt is the {@code system} block;</li>
 * <li>an assistant message's tool calls are {@code tool_use} blocks;</li>
 * <li>a run of tool results is one user message of {@code tool_result} blocks, and a user text that follows them
 * joins that message, since roles alternate;</li>
 * <li>{@code metadata.user_id} is the agent id.</li>
 * </ul>
 *
 * <p><b>Prompt caching</b>: three {@code cache_control} breakpoints mark what the next request repeats. They sit on
 * the last tool, on the system prompt and on the last block of the conversation. Each round then reads the previous
 * round's whole prefix from the provider's cache, and writes only what the round added.
 *
 * <p>The reply maps back like this:
 * <ul>
 * <li>{@code stop_reason} becomes the engine's finish reasons ({@code end_turn} → {@code stop}, {@code tool_use} →
 * {@code tool_calls}, {@code max_tokens} → {@code length}, {@code refusal} → {@code content_filter});</li>
 * <li>the input tokens are the sum of {@code input_tokens}, {@code cache_creation_input_tokens} and
 * {@code cache_read_input_tokens};</li>
 * <li>the cached tokens are {@code cache_read_input_tokens}, and the cache-write tokens
 * {@code cache_creation_input_tokens}.</li>
 * </ul>
 */
public final class AnthropicMessagesWire {
    /** The API version every request names ({@code anthropic-version}). */
    public static final String VERSION = "2023-06-01";
    /** {@code max_tokens} is required by the API: this when the engine sets none. */
    public static final int DEFAULT_MAX_TOKENS = 8192;

    private AnthropicMessagesWire() {
    }

    /**
     * The request body of one call.
     *
     * @param model           the model name on the wire
     * @param user            the agent id ({@code metadata.user_id})
     * @param system          the system prompt, omitted when null or empty
     * @param messages        the conversation
     * @param tools           the tools offered
     * @param maxOutputTokens {@code max_tokens}, or null for {@link #DEFAULT_MAX_TOKENS}
     */
    public static byte[] request(String model, String user, String system, List<Message> messages,
            List<ToolSpecification> tools, Integer maxOutputTokens) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("model", model);
        root.put("max_tokens", maxOutputTokens == null ? DEFAULT_MAX_TOKENS : maxOutputTokens);
        if (system != null && !system.isEmpty()) {
            ObjectNode block = root.putArray("system").addObject().put("type", "text").put("text", system);
            cache(block);
        }
        if (tools != null && !tools.isEmpty()) {
            ArrayNode t = root.putArray("tools");
            for (ToolSpecification s : tools) {
                ObjectNode tool = t.addObject().put("name", s.name());
                if (s.description() != null) {
                    tool.put("description", s.description());
                }
                tool.set("input_schema", s.parameters() == null
                        ? Json.MAPPER.createObjectNode().put("type", "object") : ToolSchemas.toJson(s.parameters()));
            }
            cache((ObjectNode) t.get(t.size() - 1));
        }
        ArrayNode out = root.putArray("messages");
        for (Message m : messages) {
            append(out, m);
        }
        if (!out.isEmpty()) {
            ArrayNode lastContent = (ArrayNode) out.get(out.size() - 1).get("content");
            if (!lastContent.isEmpty()) {
                cache((ObjectNode) lastContent.get(lastContent.size() - 1));
            }
        }
        if (user != null) {
            root.putObject("metadata").put("user_id", user);
        }
        try {
            return Json.MAPPER.writeValueAsBytes(root);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void cache(ObjectNode block) {
        block.putObject("cache_control").put("type", "ephemeral");
    }

    /** Appends {@code m}, joining it to the last message when both are the user's (tool results and text). */
    private static void append(ArrayNode out, Message m) {
        String role = m.role() == Message.Role.ASSISTANT ? "assistant" : "user";
        ArrayNode content;
        JsonNode last = out.isEmpty() ? null : out.get(out.size() - 1);
        if (last != null && role.equals(last.path("role").asText())) {
            content = (ArrayNode) last.get("content");
        } else {
            ObjectNode msg = out.addObject().put("role", role);
            content = msg.putArray("content");
        }
        switch (m.role()) {
            case TOOL -> {
                ObjectNode r = content.addObject().put("type", "tool_result").put("tool_use_id", m.toolCallId());
                r.put("content", m.content() == null || m.content().isEmpty() ? "(no output)" : m.content());
                if (m.error()) {
                    r.put("is_error", true);
                }
            }
            case ASSISTANT -> {
                if (m.content() != null && !m.content().isBlank()) {
                    content.addObject().put("type", "text").put("text", m.content());
                }
                for (ModelToolCall c : m.toolCalls()) {
                    ObjectNode u = content.addObject().put("type", "tool_use").put("id", c.id()).put("name", c.name());
                    u.set("input", arguments(c.arguments()));
                }
                if (content.isEmpty()) {
                    content.addObject().put("type", "text").put("text", "(no answer)");
                }
            }
            case USER -> content.addObject().put("type", "text").put("text",
                    m.content() == null || m.content().isEmpty() ? "(empty)" : m.content());
        }
    }

    /** A call's arguments as the object the API wants; text that is not a JSON object is sent as {@code {}}. */
    private static JsonNode arguments(String args) {
        try {
            JsonNode n = args == null || args.isBlank() ? null : Json.MAPPER.readTree(args);
            return n != null && n.isObject() ? n : Json.MAPPER.createObjectNode();
        } catch (IOException e) {
            return Json.MAPPER.createObjectNode();
        }
    }

    /**
     * The engine's reply from a 200 answer's body.
     *
     * @throws MalformedModelResponse when the body is not JSON or is not a message
     */
    public static ModelClient.Reply reply(byte[] body) {
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(body);
        } catch (IOException e) {
            throw new MalformedModelResponse("the model's answer is not a usable message: it is not JSON", e);
        }
        if (root == null || !root.path("content").isArray()) {
            throw new MalformedModelResponse("the model's answer is not a usable message: a field the answer must have"
                    + " is missing (content)", null);
        }
        StringBuilder text = new StringBuilder();
        List<ModelToolCall> calls = new ArrayList<>();
        for (JsonNode b : root.get("content")) {
            switch (b.path("type").asText()) {
                case "text" -> text.append(b.path("text").asText(""));
                case "tool_use" -> calls.add(new ModelToolCall(b.path("id").asText(), b.path("name").asText(),
                        b.has("input") ? Json.write(b.get("input")) : "{}"));
                default -> {
                    // thinking and other blocks are not part of the engine's conversation
                }
            }
        }
        String finish = switch (root.path("stop_reason").asText("")) {
            case "tool_use" -> "tool_calls";
            case "max_tokens" -> "length";
            case "refusal" -> "content_filter";
            default -> calls.isEmpty() ? "stop" : "tool_calls";
        };
        JsonNode u = root.path("usage");
        long cacheRead = u.path("cache_read_input_tokens").asLong(0);
        long cacheWrite = u.path("cache_creation_input_tokens").asLong(0);
        long input = u.path("input_tokens").asLong(0) + cacheWrite + cacheRead;
        return new ModelClient.Reply(text.isEmpty() ? null : text.toString(), calls, finish, input,
                u.path("output_tokens").asLong(0), root.path("model").asText(null), cacheRead, cacheWrite);
    }
}
