package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.cohort.core.protocol.EventType;

/**
 * {@code model_retry}: what error recovery did; {@code action} tells the record apart. Every record carries
 * {@code turnId} and, in a subagent's loop, {@code subagent: true}.
 */
@JsonPropertyOrder({"action"})
public sealed interface ModelRetry extends EventPayload {

    /** The recovery action, the first field of the data. */
    @JsonProperty("action")
    String action();

    @Override
    default EventType type() {
        return EventType.MODEL_RETRY;
    }

    /** A transient failure; the call is retried after {@code delayMs}. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Retry(int attempt, int maxAttempts, String kind, int status, String code, long delayMs, boolean retryAfter,
            String model, String turnId, Boolean subagent) implements ModelRetry {
        @Override
        public String action() {
            return "retry";
        }
    }

    /** Overloaded too often: the fallback model is used for the rest of the turn. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Fallback(String from, String to, int status, String code, String turnId, Boolean subagent)
            implements ModelRetry {
        @Override
        public String action() {
            return "fallback";
        }
    }

    /** The context window was exceeded: the conversation is summarised once. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record ReactiveCompact(int status, String code, String turnId, Boolean subagent) implements ModelRetry {
        @Override
        public String action() {
            return "reactive_compact";
        }
    }

    /** The reply hit the output limit: the limit is raised once. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record EscalateMaxTokens(int from, int to, String turnId, Boolean subagent) implements ModelRetry {
        @Override
        public String action() {
            return "escalate_max_tokens";
        }
    }

    /** Tool calls were cut off at the output limit and answered with placeholders. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record TruncatedToolCalls(int count, int max, String turnId, Boolean subagent) implements ModelRetry {
        @Override
        public String action() {
            return "truncated_tool_calls";
        }
    }

    /** A cut-off answer is continued. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Continue(int continuation, int max, int maxOutputTokens, String turnId, Boolean subagent)
            implements ModelRetry {
        @Override
        public String action() {
            return "continue";
        }
    }

    /** The continuations are used up: the answer is kept as cut off. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record ContinuationLimit(int max, String turnId, Boolean subagent) implements ModelRetry {
        @Override
        public String action() {
            return "continuation_limit";
        }
    }
}
