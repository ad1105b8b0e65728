package dev.cohort.devstack.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Anthropic's Messages API on the scripted model server ({@code POST /v1/messages}): a request is read as the
 * chat-completions request it stands for, so the same scenario rules answer both wires and the recorded requests
 * have one shape; the answer is written back as a message.
 *
 * <p>The translation, both ways:
 * <ul>
 * <li>{@code system} becomes the system message, and {@code metadata.user_id} the OpenAI {@code user};</li>
 * <li>{@code tool_use} blocks become tool calls, and {@code tool_result} blocks tool messages;</li>
 * <li>an answer's finish reason becomes a {@code stop_reason}, and its error the API's error body.</li>
 * </ul>
 *
 * <p>Prompt caching is reported as the API reports it. A request carrying {@code cache_control} reads from the cache
 * the longest prefix (system, tools and leading messages) that was a whole earlier request's prompt: those tokens are
 * {@code cache_read_input_tokens}, and the rest is written to the cache ({@code cache_creation_input_tokens}).
 */
final class AnthropicWire {
    /** Every prompt seen whole (system, tools and messages), by digest. */
    private final Set<String> seen = ConcurrentHashMap.newKeySet();

    /** Forgets the prompts seen (the server's reset). */
    void forget() {
        seen.clear();
    }

    /** {@code body} (an Anthropic request) as a chat-completions request. */
    static ObjectNode toChatCompletions(JsonNode body) {
        ObjectNode out = Json.MAPPER.createObjectNode();
        if (body.hasNonNull("model")) {
            out.set("model", body.get("model"));
        }
        if (body.path("metadata").hasNonNull("user_id")) {
            out.put("user", body.path("metadata").path("user_id").asText());
        }
        if (body.hasNonNull("max_tokens")) {
            out.set("max_tokens", body.get("max_tokens"));
        }
        ArrayNode messages = out.putArray("messages");
        String system = text(body.get("system"));
        if (system != null && !system.isEmpty()) {
            messages.addObject().put("role", "system").put("content", system);
        }
        for (JsonNode m : body.path("messages")) {
            String role = m.path("role").asText();
            JsonNode content = m.get("content");
            if (content != null && content.isTextual()) {
                messages.addObject().put("role", role).put("content", content.asText());
                continue;
            }
            StringBuilder text = new StringBuilder();
            ArrayNode calls = null;
            boolean user = !"assistant".equals(role);
            for (JsonNode b : content == null ? Json.MAPPER.createArrayNode() : content) {
                switch (b.path("type").asText()) {
                    // a user's text blocks are the user messages the roles' alternation joined: one message each
                    case "text" -> {
                        if (user) {
                            messages.addObject().put("role", role).put("content", b.path("text").asText());
                        } else {
                            text.append(text.isEmpty() ? "" : "\n").append(b.path("text").asText());
                        }
                    }
                    case "tool_result" -> messages.addObject().put("role", "tool")
                            .put("tool_call_id", b.path("tool_use_id").asText())
                            .put("content", text(b.get("content")));
                    case "tool_use" -> {
                        if (calls == null) {
                            calls = Json.MAPPER.createArrayNode();
                        }
                        ObjectNode c = calls.addObject().put("id", b.path("id").asText()).put("type", "function");
                        c.putObject("function").put("name", b.path("name").asText())
                                .put("arguments", b.has("input") ? b.get("input").toString() : "{}");
                    }
                    default -> {
                        // images and other blocks: not part of what rules match
                    }
                }
            }
            if ("assistant".equals(role)) {
                ObjectNode a = messages.addObject().put("role", "assistant");
                if (text.isEmpty()) {
                    a.putNull("content");
                } else {
                    a.put("content", text.toString());
                }
                if (calls != null) {
                    a.set("tool_calls", calls);
                }
            }
        }
        ArrayNode tools = Json.MAPPER.createArrayNode();
        for (JsonNode t : body.path("tools")) {
            ObjectNode f = tools.addObject().put("type", "function").putObject("function");
            f.put("name", t.path("name").asText());
            if (t.hasNonNull("description")) {
                f.put("description", t.path("description").asText());
            }
            f.set("parameters", t.path("input_schema"));
        }
        if (!tools.isEmpty()) {
            out.set("tools", tools);
        }
        return out;
    }

    /** A text field or an array of text blocks as one text ({@code null} when absent). */
    private static String text(JsonNode n) {
        if (n == null || n.isNull()) {
            return null;
        }
        if (n.isTextual()) {
            return n.asText();
        }
        StringBuilder s = new StringBuilder();
        for (JsonNode b : n) {
            if ("text".equals(b.path("type").asText())) {
                s.append(s.isEmpty() ? "" : "\n").append(b.path("text").asText());
            }
        }
        return s.toString();
    }

    /**
     * A chat completion ({@code completion}) as the message answering {@code request}; the usage's prompt tokens split
     * into what the cache served, what it stored and the rest.
     */
    ObjectNode toMessage(JsonNode completion, JsonNode request, long seq) {
        ObjectNode out = Json.MAPPER.createObjectNode();
        out.put("id", "msg_scripted_" + seq);
        out.put("type", "message");
        out.put("role", "assistant");
        out.set("model", completion.path("model"));
        ArrayNode content = out.putArray("content");
        JsonNode message = completion.path("choices").path(0).path("message");
        if (message.hasNonNull("content") && !message.path("content").asText().isEmpty()) {
            content.addObject().put("type", "text").put("text", message.path("content").asText());
        }
        for (JsonNode c : message.path("tool_calls")) {
            ObjectNode u = content.addObject().put("type", "tool_use").put("id", c.path("id").asText())
                    .put("name", c.path("function").path("name").asText());
            JsonNode input;
            try {
                input = Json.MAPPER.readTree(c.path("function").path("arguments").asText("{}"));
            } catch (IOException e) {
                input = null;
            }
            u.set("input", input != null && input.isObject() ? input : Json.MAPPER.createObjectNode());
        }
        String finish = completion.path("choices").path(0).path("finish_reason").asText("stop");
        out.put("stop_reason", switch (finish) {
            case "tool_calls" -> "tool_use";
            case "length" -> "max_tokens";
            case "content_filter" -> "refusal";
            default -> "end_turn";
        });
        out.putNull("stop_sequence");
        long prompt = completion.path("usage").path("prompt_tokens").asLong(0);
        JsonNode given = completion.path("usage").path("prompt_tokens_details").path("cached_tokens");
        // a rule's own cached tokens win over what the server saw (tests set exact figures)
        long read = given.isNumber() ? given.asLong() : cacheRead(request, prompt);
        ObjectNode usage = out.putObject("usage");
        boolean caching = given.isNumber() || request.toString().contains("\"cache_control\"");
        usage.put("input_tokens", caching ? 0 : prompt);
        usage.put("cache_creation_input_tokens", caching ? prompt - read : 0);
        usage.put("cache_read_input_tokens", read);
        usage.put("output_tokens", completion.path("usage").path("completion_tokens").asLong(0));
        return out;
    }

    /**
     * The prompt tokens of {@code request} the cache serves: the longest prefix that was an earlier request's whole
     * prompt, in proportion to its share of the request's characters; the request's own prompt is remembered. The
     * digest of each prefix continues the one before (a copy of the running digest), so a conversation is hashed
     * once: hashing every prefix from its start is quadratic, hundreds of ms per request at a few hundred messages,
     * which a benchmark on this wire would charge to the client's round.
     */
    private long cacheRead(JsonNode request, long promptTokens) {
        if (!request.toString().contains("\"cache_control\"")) {
            return 0;
        }
        MessageDigest running = sha256();
        long length = update(running, strip(request.get("system")) + "\u0000" + strip(request.get("tools")));
        JsonNode messages = request.path("messages");
        long longest = 0;
        String whole = null;
        for (int i = 0; i < messages.size(); i++) {
            length += update(running, "\u0000" + strip(messages.get(i)));
            String d = digestSoFar(running);
            if (i < messages.size() - 1 && seen.contains(d)) {
                longest = length;
            }
            whole = d;
        }
        if (whole != null) {
            seen.add(whole);
        }
        return length == 0 ? 0 : Math.min(promptTokens, promptTokens * longest / length);
    }

    /** Feeds {@code s} (UTF-8) to {@code digest}; its length in chars. */
    private static long update(MessageDigest digest, String s) {
        digest.update(s.getBytes(StandardCharsets.UTF_8));
        return s.length();
    }

    /** A node without its {@code cache_control} markers (where the breakpoints sit does not change the prefix). */
    private static String strip(JsonNode n) {
        return n == null ? "" : n.toString().replace(",\"cache_control\":{\"type\":\"ephemeral\"}", "");
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The digest of what {@code running} was fed so far, leaving it to be fed on. */
    private static String digestSoFar(MessageDigest running) {
        try {
            return HexFormat.of().formatHex(((MessageDigest) running.clone()).digest());
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("SHA-256 digests can be copied on every JDK", e);
        }
    }

    /**
     * A chat-completions error body as the Messages API's: its type by status ({@code rate_limit_error},
     * {@code overloaded_error}, …), a context-length error as the API words it ({@code prompt is too long}). A body
     * already in the API's form is kept.
     */
    static byte[] toError(int status, byte[] body) {
        return error(status, body).body();
    }

    /** An error answer's status and body on the Messages API (an exhausted quota is its 400). */
    record Error(int status, byte[] body) {
    }

    /** {@link #toError}, with the status the API answers it with. */
    static Error error(int status, byte[] body) {
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(body);
        } catch (IOException e) {
            root = null;
        }
        if (root != null && "error".equals(root.path("type").asText())) {
            return new Error(status, body);
        }
        JsonNode err = root == null ? null : root.path("error");
        String message = err == null ? new String(body, StandardCharsets.UTF_8) : err.path("message").asText("");
        String code = err == null ? "" : err.path("code").asText("") + " " + err.path("type").asText("");
        String type;
        if (code.contains("insufficient_quota")) {
            status = 400;
            type = "invalid_request_error";
            message = "Your credit balance is too low to access the Anthropic API: " + message;
        } else if (code.contains("context_length") || status == 413) {
            type = status == 413 ? "request_too_large" : "invalid_request_error";
            message = "prompt is too long: " + message;
        } else {
            type = switch (status) {
                case 400 -> "invalid_request_error";
                case 401 -> "authentication_error";
                case 403 -> "permission_error";
                case 404 -> "not_found_error";
                case 429 -> "rate_limit_error";
                case 529, 503 -> "overloaded_error";
                default -> "api_error";
            };
        }
        ObjectNode out = Json.MAPPER.createObjectNode().put("type", "error");
        out.putObject("error").put("type", type).put("message", message);
        try {
            return new Error(status, Json.MAPPER.writeValueAsBytes(out));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
