package dev.cohort.core.engine.recovery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.TimeoutException;
import dev.cohort.core.retry.RetryPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Set;

/**
 * What a failed model call means for recovery, decided from the HTTP status and the provider's error {@code code} /
 * {@code type} (never from substrings of the message, which misread "74290 tokens" as a 429).
 *
 * @param kind       the class of failure
 * @param status     the HTTP status, 0 when there was no answer (connection error, timeout)
 * @param code       the provider's error code or type ({@code rate_limit_exceeded}, {@code overloaded}, …), or null
 * @param message    the provider's message (or the exception's), for people
 * @param retryAfter the server's {@code retry-after-ms} / {@code Retry-After}, or null
 */
public record ModelFailure(Kind kind, int status, String code, String message, Duration retryAfter) {

    /** Classes of failure and what recovery does with them. */
    public enum Kind {
        /** 429 without a quota code: back off. */
        RATE_LIMIT(true),
        /** 429 {@code insufficient_quota}: retrying cannot help; stop with a clear message. */
        QUOTA(false),
        /** 529, 503 or code {@code overloaded}: back off; counts towards the switch to the fallback model. */
        OVERLOADED(true),
        /** 500, 502, 504 and other 5xx, 408, 409: back off. */
        SERVER(true),
        /** No answer: connection refused or reset, timeout. Back off. */
        CONNECTION(true),
        /** 400/413 context-length error: reactive compaction, once per turn. */
        CONTEXT_LENGTH(false),
        /** 401/403: stop with a clear message. */
        AUTH(false),
        /** Any other 4xx (bad request, unknown model): stop. */
        BAD_REQUEST(false),
        /** A 200 answer that is not a usable completion (no choices, no message, unmappable): back off and ask again. */
        BAD_RESPONSE(true),
        /** Not a provider answer (a bug, an unexpected exception): stop. */
        OTHER(false);

        private final boolean retryable;

        Kind(boolean retryable) {
            this.retryable = retryable;
        }

        public boolean retryable() {
            return retryable;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Error codes meaning "the prompt does not fit" (OpenAI, Anthropic-compatible and vLLM-style gateways). */
    private static final Set<String> CONTEXT_CODES = Set.of("context_length_exceeded", "prompt_too_long",
            "model_context_window_exceeded", "context_window_exceeded", "request_too_large");
    /** Error codes meaning "no credit left": retrying only burns time. */
    private static final Set<String> QUOTA_CODES = Set.of("insufficient_quota", "billing_hard_limit_reached",
            "quota_exceeded");

    /** Classifies a model call's exception by walking its causes to the HTTP answer, if any. */
    public static ModelFailure classify(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof HttpException h) {
                Duration retryAfter = c instanceof ProviderHttpException p ? retryAfter(p) : null;
                return fromHttp(h.statusCode(), h.getMessage(), retryAfter);
            }
        }
        if (t instanceof MalformedModelResponse m) {
            return new ModelFailure(Kind.BAD_RESPONSE, 0, "bad_response", m.getMessage(), null);
        }
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof TimeoutException || c instanceof HttpTimeoutException
                    || c instanceof java.util.concurrent.TimeoutException || c instanceof IOException
                    || c instanceof UncheckedIOException) {
                return new ModelFailure(Kind.CONNECTION, 0, null, String.valueOf(c.getMessage()), null);
            }
        }
        return new ModelFailure(Kind.OTHER, 0, null, t.toString(), null);
    }

    /** Classifies an HTTP error answer (pure: status, body, retry-after). */
    public static ModelFailure fromHttp(int status, String body, Duration retryAfter) {
        String code = null;
        String type = null;
        String message = body;
        try {
            JsonNode root = body == null || body.isBlank() ? null : JSON.readTree(body);
            JsonNode err = root == null ? null : root.path("error");
            if (err != null && err.isObject()) {
                code = text(err.get("code"));
                type = text(err.get("type"));
                message = err.hasNonNull("message") ? err.get("message").asText() : body;
            } else if (err != null && err.isTextual()) {
                message = err.asText();
            }
        } catch (IOException | RuntimeException e) {
            // not JSON: classify by status alone
        }
        String c = code != null ? code.toLowerCase(Locale.ROOT) : null;
        String ty = type != null ? type.toLowerCase(Locale.ROOT) : null;
        String shown = c != null ? c : ty;
        Kind kind;
        // Anthropic names a too-long prompt only in its message: 400 invalid_request_error "prompt is too long: …"
        boolean tooLong = status == 400 && message != null
                && message.toLowerCase(Locale.ROOT).contains("prompt is too long");
        if (in(CONTEXT_CODES, c) || in(CONTEXT_CODES, ty) || status == 413 || tooLong) {
            kind = Kind.CONTEXT_LENGTH;
        } else if (in(QUOTA_CODES, c) || in(QUOTA_CODES, ty) || message != null
                && message.toLowerCase(Locale.ROOT).contains("credit balance is too low")) {
            // Anthropic names an exhausted balance only in its message (400 invalid_request_error)
            kind = Kind.QUOTA;
        } else if (status == 429) {
            kind = Kind.RATE_LIMIT;
        } else if (status == 529 || status == 503 || "overloaded".equals(c) || "overloaded_error".equals(ty)) {
            kind = Kind.OVERLOADED;
        } else if (status >= 500 || status == 408 || status == 409) {
            kind = Kind.SERVER;
        } else if (status == 401 || status == 403) {
            kind = Kind.AUTH;
        } else {
            kind = Kind.BAD_REQUEST;
        }
        return new ModelFailure(kind, status, shown, message, retryAfter);
    }

    private static boolean in(Set<String> set, String v) {
        return v != null && set.contains(v); // Set.of(...).contains(null) throws
    }

    private static String text(JsonNode n) {
        return n == null || n.isNull() ? null : n.asText();
    }

    /** {@code retry-after-ms} (OpenAI, milliseconds) wins over {@code Retry-After} (seconds or an HTTP date). */
    static Duration retryAfter(ProviderHttpException p) {
        try {
            var ms = p.header("retry-after-ms");
            if (ms.isPresent()) {
                return Duration.ofMillis((long) Double.parseDouble(ms.get().trim()));
            }
            var s = p.header("retry-after");
            if (s.isPresent()) {
                return RetryPolicy.retryAfter(s.get(), Instant.now());
            }
        } catch (RuntimeException e) {
            // an unreadable header: use the computed backoff
        }
        return null;
    }

    /** A one-line description for people: {@code HTTP 429 rate_limit_exceeded: ...}. */
    public String describe() {
        String m = message == null ? "" : message.length() > 300 ? message.substring(0, 300) + "…" : message;
        return (status > 0 ? "HTTP " + status + " " : "") + (code != null ? code + ": " : "") + m;
    }
}
