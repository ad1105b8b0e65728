package dev.cohort.core.engine;

import dev.cohort.core.engine.recovery.ModelFailure;
import java.time.Duration;

/**
 * What the engine tells a host's metrics at three points: a model call ended (each attempt, so retries count), a tool
 * call ended, a turn ended. Core knows no metrics library: a service implements this over Micrometer
 * ({@code dev.cohort.host.engine.MicrometerEngineMetrics}); the default does nothing. Implementations must be cheap
 * and must not throw (they run on the agent's thread, inside the loop).
 *
 * <p>Label values are bounded by construction: outcomes are the constants below, a tool name the model invented is
 * reported as {@link #UNKNOWN_TOOL}, models come from configuration.
 */
public interface EngineMetrics {

    /** Does nothing (the default of {@link AgentEngine.Builder#metrics}). */
    EngineMetrics NONE = new EngineMetrics() {
    };

    /** The model label of a failed call with no model configured (the gateway's default answered nothing). */
    String DEFAULT_MODEL = "default";

    /** The tool label of a call to a tool that is not registered (the model's name would be unbounded). */
    String UNKNOWN_TOOL = "unknown";
    /** How the metrics name a call of any MCP tool (their names are the servers', unbounded). */
    String MCP_TOOL = "mcp";

    /** One model call attempt ended after {@code took}; {@code outcome} is one of {@link ModelOutcome}'s labels. */
    default void modelCall(String model, ModelOutcome outcome, Duration took) {
    }

    /** One tool call ended after {@code took} (the gates, the tool and the hooks). */
    default void toolCall(String tool, ToolOutcome outcome, Duration took) {
    }

    /**
     * A main turn ended (not a subagent's loop, not a park or a hand-over); {@code took} runs from the loop's start
     * on this replica (a turn resumed after a park or a move counts from its resumption: waiting for a person is
     * not latency).
     */
    default void turnEnded(StopReason reason, Duration took) {
    }

    /** How a model call attempt ended: the label {@code outcome} of {@code cohort_model_calls_total}. */
    enum ModelOutcome {
        OK("ok"),
        /** 429 (backing off) and 429 with an exhausted quota. */
        RATE_LIMITED("rate_limited"),
        /** 529, 503 or code {@code overloaded}. */
        OVERLOADED("overloaded"),
        /** Other 5xx, 408, 409. */
        SERVER_ERROR("server_error"),
        /** No answer: timeout, connection refused or reset. */
        TIMEOUT("timeout"),
        /** A 200 that is not a usable completion (no choices, no message): {@code ModelFailure.Kind.BAD_RESPONSE}. */
        BAD_RESPONSE("bad_response"),
        /** Any other refusal (context length, credentials, bad request) or an unexpected exception. */
        OTHER("other");

        private final String label;

        ModelOutcome(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        /** The outcome of a classified failure. */
        public static ModelOutcome of(ModelFailure.Kind kind) {
            return switch (kind) {
                case RATE_LIMIT, QUOTA -> RATE_LIMITED;
                case OVERLOADED -> OVERLOADED;
                case SERVER -> SERVER_ERROR;
                case CONNECTION -> TIMEOUT;
                case BAD_RESPONSE -> BAD_RESPONSE;
                case CONTEXT_LENGTH, AUTH, BAD_REQUEST, OTHER -> OTHER;
            };
        }
    }

    /** How a tool call ended: the label {@code outcome} of {@code cohort_tool_call_duration_seconds}. */
    enum ToolOutcome {
        OK("ok"),
        /** A model-visible error (bad arguments, file not found, unknown tool, a hook's refusal, a tool's bug). */
        ERROR("error"),
        /** Refused by the permission gate or an approval. */
        DENIED("denied"),
        /** The tool infrastructure failed after retries: the turn ends. */
        INFRASTRUCTURE("infrastructure");

        private final String label;

        ToolOutcome(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }
}
