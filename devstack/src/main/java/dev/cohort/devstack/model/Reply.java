package dev.cohort.devstack.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Arrays;
import java.util.List;

/** What a rule answers: text and/or tool calls, finish reason, usage, delay, or an HTTP error. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Reply(
        String text,
        List<ToolCall> toolCalls,
        String rawArguments,
        String finishReason,
        Usage usage,
        Long delayMs,
        Error error,
        String rawBody,
        Integer truncateAt) {

    /** A plain assistant text answer. */
    public static Reply text(String text) {
        return new Reply(text, null, null, null, null, null, null, null, null);
    }

    /** An answer made of one or more tool calls. */
    public static Reply toolCalls(ToolCall... calls) {
        return new Reply(null, List.of(calls), null, null, null, null, null, null, null);
    }

    /** An HTTP error answer; null fields take the defaults of the status (see {@link Error}). */
    public static Reply error(Error error) {
        return new Reply(null, null, null, null, null, null, error, null, null);
    }

    /** An HTTP error answer from a preset name such as {@code context_length_exceeded}. */
    public static Reply errorPreset(String preset) {
        return error(new Error(null, null, null, null, null, null, null, null, preset));
    }

    /**
     * A 200 answer whose body is {@code body} verbatim, e.g. {@code {"choices":[]}} or text that is not JSON: the
     * malformed provider output a client must survive.
     */
    public static Reply rawBody(String body) {
        return new Reply(null, null, null, null, null, null, null, body, null);
    }

    /**
     * This answer cut after {@code bytes} bytes of its body: the response declares the whole length, sends only that
     * much and closes the connection, as a provider or proxy dying mid-response does.
     */
    public Reply truncatedAt(int bytes) {
        return new Reply(text, toolCalls, rawArguments, finishReason, usage, delayMs, error, rawBody, bytes);
    }

    public Reply withText(String value) {
        return new Reply(value, toolCalls, rawArguments, finishReason, usage, delayMs, error, rawBody, truncateAt);
    }

    public Reply withRawArguments(String value) {
        return new Reply(text, toolCalls, value, finishReason, usage, delayMs, error, rawBody, truncateAt);
    }

    public Reply withFinishReason(String value) {
        return new Reply(text, toolCalls, rawArguments, value, usage, delayMs, error, rawBody, truncateAt);
    }

    public Reply withUsage(int promptTokens, int completionTokens) {
        return new Reply(text, toolCalls, rawArguments, finishReason, new Usage(promptTokens, completionTokens, null),
                delayMs, error, rawBody, truncateAt);
    }

    /** Usage with {@code cachedTokens} of the prompt tokens reported as served from the cache. */
    public Reply withUsage(int promptTokens, int completionTokens, int cachedTokens) {
        return new Reply(text, toolCalls, rawArguments, finishReason,
                new Usage(promptTokens, completionTokens, null, cachedTokens), delayMs, error, rawBody, truncateAt);
    }

    public Reply withDelayMs(long value) {
        return new Reply(text, toolCalls, rawArguments, finishReason, usage, value, error, rawBody, truncateAt);
    }

    void validate(String where) {
        if (error != null) {
            error.validate(where);
        }
        if (delayMs != null && delayMs < 0) {
            throw new IllegalArgumentException(where + ": reply.delayMs must be >= 0");
        }
        if (toolCalls != null) {
            for (ToolCall call : toolCalls) {
                if (call == null || call.name() == null || call.name().isBlank()) {
                    throw new IllegalArgumentException(where + ": every reply.toolCalls entry needs a name");
                }
            }
        }
        if (rawBody != null && (text != null || toolCalls != null || error != null)) {
            throw new IllegalArgumentException(where + ": reply.rawBody is the whole body: no text, toolCalls or error beside it");
        }
        if (truncateAt != null && (truncateAt < 0 || error != null)) {
            throw new IllegalArgumentException(where + ": reply.truncateAt must be >= 0 and cannot cut an error reply");
        }
        if (rawArguments != null && (toolCalls == null || toolCalls.isEmpty())) {
            throw new IllegalArgumentException(where + ": reply.rawArguments needs at least one tool call");
        }
    }

    /** One tool call; {@code arguments} is a JSON value serialised to a string, or a JSON string used verbatim. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ToolCall(String id, String name, JsonNode arguments) {

        /** A tool call with arguments given as JSON text (sent verbatim, so it may be malformed on purpose). */
        public static ToolCall of(String name, String argumentsJson) {
            return new ToolCall(null, name, argumentsJson == null ? null : TextNode.valueOf(argumentsJson));
        }

        public ToolCall withId(String value) {
            return new ToolCall(value, name, arguments);
        }
    }

    /**
     * Token usage to report instead of the chars/4 estimate; absent fields keep the estimate. {@code cached_tokens}
     * is reported as {@code usage.prompt_tokens_details.cached_tokens} (absent: no details, as many providers send).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Usage(
            @JsonProperty("prompt_tokens") Integer promptTokens,
            @JsonProperty("completion_tokens") Integer completionTokens,
            @JsonProperty("total_tokens") Integer totalTokens,
            @JsonProperty("cached_tokens") Integer cachedTokens) {

        public Usage(Integer promptTokens, Integer completionTokens, Integer totalTokens) {
            this(promptTokens, completionTokens, totalTokens, null);
        }
    }

    /**
     * An HTTP error reply. {@code preset} (or, without it, {@code status}) supplies defaults for the other fields;
     * {@code format: "anthropic"} switches the body to {@code {"type":"error","error":{...}}}.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Error(
            Integer status,
            String type,
            String code,
            String message,
            String param,
            String retryAfter,
            String retryAfterMs,
            String format,
            String preset) {

        /** Preset names accepted in {@code preset}. */
        public static final List<String> PRESETS = Arrays.stream(Preset.values()).map(Preset::id).toList();

        public static Error of(int status, String type, String code, String message) {
            return new Error(status, type, code, message, null, null, null, null, null);
        }

        public Error withRetryAfter(String seconds) {
            return new Error(status, type, code, message, param, seconds, retryAfterMs, format, preset);
        }

        public Error withRetryAfterMs(String millis) {
            return new Error(status, type, code, message, param, retryAfter, millis, format, preset);
        }

        public Error withFormat(String value) {
            return new Error(status, type, code, message, param, retryAfter, retryAfterMs, value, preset);
        }

        void validate(String where) {
            if (preset != null && Preset.byId(preset) == null) {
                throw new IllegalArgumentException(where + ": unknown error preset '" + preset + "', known: " + PRESETS);
            }
            if (preset == null && status == null) {
                throw new IllegalArgumentException(where + ": reply.error needs a status or a preset");
            }
            if (status != null && (status < 400 || status > 599)) {
                throw new IllegalArgumentException(where + ": reply.error.status must be 4xx or 5xx, got " + status);
            }
            if (format != null && !format.equals("openai") && !format.equals("anthropic")) {
                throw new IllegalArgumentException(where + ": reply.error.format is 'openai' or 'anthropic'");
            }
        }

        /** This error with every null field filled from its preset or, failing that, from its status. */
        Error resolved() {
            Preset p = preset != null ? Preset.byId(preset) : Preset.byStatus(status);
            if (p == null) {
                p = Preset.GENERIC;
            }
            int s = status != null ? status : p.status;
            return new Error(s,
                    type != null ? type : p.type,
                    code != null ? code : p.code,
                    message != null ? message : p.message,
                    param != null ? param : p.param,
                    retryAfter != null ? retryAfter : p.retryAfter,
                    retryAfterMs,
                    format != null ? format : "openai",
                    preset);
        }
    }

    /** Real-world error bodies, copied from what OpenAI (and Anthropic for 529) send. */
    enum Preset {
        RATE_LIMIT("rate_limit", 429, "requests", "rate_limit_exceeded", null, "1",
                "Rate limit reached for requests on model scripted. Please try again in 1s."),
        INSUFFICIENT_QUOTA("insufficient_quota", 429, "insufficient_quota", "insufficient_quota", null, null,
                "You exceeded your current quota, please check your plan and billing details. For more information"
                        + " on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors."),
        CONTEXT_LENGTH_EXCEEDED("context_length_exceeded", 400, "invalid_request_error", "context_length_exceeded",
                "messages", null,
                "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072"
                        + " tokens. Please reduce the length of the messages."),
        INVALID_API_KEY("invalid_api_key", 401, "invalid_request_error", "invalid_api_key", null, null,
                "Incorrect API key provided: sk-test. You can find your API key at"
                        + " https://platform.openai.com/account/api-keys."),
        SERVER_ERROR("server_error", 500, "server_error", null, null, null,
                "The server had an error while processing your request. Sorry about that!"),
        SERVICE_UNAVAILABLE("service_unavailable", 503, "server_error", "service_unavailable", null, null,
                "The engine is currently overloaded, please try again later."),
        OVERLOADED("overloaded", 529, "overloaded_error", "overloaded", null, null, "Overloaded"),
        GENERIC("invalid_request", 400, "invalid_request_error", null, null, null, "Scripted error.");

        final String id;
        final int status;
        final String type;
        final String code;
        final String param;
        final String retryAfter;
        final String message;

        Preset(String id, int status, String type, String code, String param, String retryAfter, String message) {
            this.id = id;
            this.status = status;
            this.type = type;
            this.code = code;
            this.param = param;
            this.retryAfter = retryAfter;
            this.message = message;
        }

        String id() {
            return id;
        }

        static Preset byId(String id) {
            for (Preset p : values()) {
                if (p.id.equals(id)) {
                    return p;
                }
            }
            return null;
        }

        /** The usual preset of this status, so that a bare {@code {"status":529}} still gets a realistic body. */
        static Preset byStatus(Integer status) {
            if (status == null) {
                return null;
            }
            return switch (status) {
                case 401 -> INVALID_API_KEY;
                case 429 -> RATE_LIMIT;
                case 503 -> SERVICE_UNAVAILABLE;
                case 529 -> OVERLOADED;
                default -> status >= 500 ? SERVER_ERROR : GENERIC;
            };
        }
    }
}
