package dev.cohort.core.engine;

import dev.cohort.core.llm.GatewayModelClient;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.List;

/**
 * How the engine calls a model: one request, one reply. Production uses {@link GatewayModelClient} over
 * {@link dev.cohort.core.llm.LlmGateway}; a benchmark or unit test may answer in-process. Retries and fallback
 * wrap this interface (error recovery), so an implementation makes exactly one attempt.
 */
@FunctionalInterface
public interface ModelClient {

    /** Sends one request; throws on failure (the engine ends the turn with reason {@code error}). */
    Reply chat(Request request);

    /**
     * @param agentId         {@code <team>/<name>} (the OpenAI {@code user}); subagents add {@code /sub}
     * @param system          the assembled system prompt
     * @param messages        the conversation
     * @param tools           the specs offered
     * @param model           the model name, {@code null} for the configured primary
     * @param maxOutputTokens output limit, {@code null} for the provider default
     */
    record Request(String agentId, String system, List<Message> messages, List<ToolSpecification> tools, String model,
            Integer maxOutputTokens) {
    }

    /**
     * @param text         the assistant text (may be null with tool calls)
     * @param toolCalls    the tool calls, in order
     * @param finishReason {@code stop}, {@code tool_calls}, {@code length}, {@code content_filter} or {@code other}
     * @param inputTokens  prompt tokens reported (0 if unknown)
     * @param outputTokens completion tokens reported (0 if unknown)
     * @param model        the model that answered, if known
     * @param cachedTokens prompt tokens the provider served from its cache (part of {@code inputTokens}; 0 if it
     *                     says nothing)
     * @param cacheWriteTokens prompt tokens the provider wrote to its cache (part of {@code inputTokens}; 0 if it says
     *                     nothing, as OpenAI's API never does)
     */
    record Reply(String text, List<ModelToolCall> toolCalls, String finishReason, long inputTokens, long outputTokens,
            String model, long cachedTokens, long cacheWriteTokens) {
        public Reply {
            toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
        }

        /** A reply without cache writes. */
        public Reply(String text, List<ModelToolCall> toolCalls, String finishReason, long inputTokens,
                long outputTokens, String model, long cachedTokens) {
            this(text, toolCalls, finishReason, inputTokens, outputTokens, model, cachedTokens, 0);
        }

        /** A reply without cache information. */
        public Reply(String text, List<ModelToolCall> toolCalls, String finishReason, long inputTokens,
                long outputTokens, String model) {
            this(text, toolCalls, finishReason, inputTokens, outputTokens, model, 0, 0);
        }

        public static Reply text(String text) {
            return new Reply(text, List.of(), "stop", 0, 0, null);
        }

        public static Reply calls(String text, List<ModelToolCall> calls) {
            return new Reply(text, calls, "tool_calls", 0, 0, null);
        }
    }
}
