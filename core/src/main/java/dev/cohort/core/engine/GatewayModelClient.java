package dev.cohort.core.engine;

import dev.cohort.core.engine.recovery.MalformedModelResponse;
import dev.cohort.core.engine.recovery.ModelFailure;
import dev.cohort.core.llm.LlmGateway;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiTokenUsage;
import dev.langchain4j.model.output.TokenUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The engine's {@link ModelClient} over the {@link LlmGateway}: converts the engine's messages to langchain4j's and
 * back, and sends every call through the gateway's client of the requested model. It builds no client of its own, so
 * a host that shares one gateway has exactly one client per configured model (the gateway's clients keep error
 * headers, so recovery honours {@code Retry-After}). {@link #applyTo} gives the engine the gateway's primary and
 * fallback models, so the fallback the engine switches to is always one the gateway has a client for.
 */
public final class GatewayModelClient implements ModelClient {
    private final LlmGateway gateway;

    public GatewayModelClient(LlmGateway gateway) {
        this.gateway = Objects.requireNonNull(gateway, "gateway");
    }

    /** The gateway every call goes through. */
    public LlmGateway gateway() {
        return gateway;
    }

    /**
     * {@code settings} with the gateway's primary as the engine's model and the gateway's fallback (or none) as the
     * recovery's fallback model: the one place the engine learns which models exist.
     */
    public EngineSettings applyTo(EngineSettings settings) {
        return settings.withModel(gateway.primaryModel())
                .withRecovery(settings.recovery().withFallbackModel(gateway.fallbackModel().orElse(null)));
    }

    @Override
    public Reply chat(Request r) {
        List<ChatMessage> msgs = new ArrayList<>(r.messages().size() + 1);
        if (r.system() != null && !r.system().isEmpty()) {
            msgs.add(SystemMessage.from(r.system()));
        }
        for (Message m : r.messages()) {
            msgs.add(toLangchain(m));
        }
        ChatResponse resp;
        try {
            resp = gateway.chat(r.agentId(), msgs, r.tools(), r.model(), r.maxOutputTokens());
        } catch (RuntimeException e) {
            // HTTP errors, timeouts and I/O keep their own classification; anything else failed while reading a 200
            if (ModelFailure.classify(e).kind() == ModelFailure.Kind.OTHER && !Thread.currentThread().isInterrupted()) {
                throw MalformedModelResponse.of(e);
            }
            throw e;
        }
        if (resp == null || resp.aiMessage() == null) {
            throw new MalformedModelResponse("the model's answer is not a usable chat completion: it has no message",
                    null);
        }
        AiMessage ai = resp.aiMessage();
        List<ModelToolCall> calls = new ArrayList<>();
        if (ai.hasToolExecutionRequests()) {
            for (ToolExecutionRequest t : ai.toolExecutionRequests()) {
                calls.add(new ModelToolCall(t.id(), t.name(), t.arguments()));
            }
        }
        TokenUsage u = resp.tokenUsage();
        String finish = resp.finishReason() == null ? (calls.isEmpty() ? "stop" : "tool_calls")
                : switch (resp.finishReason()) {
                    case STOP -> "stop";
                    case LENGTH -> "length";
                    case TOOL_EXECUTION -> "tool_calls";
                    case CONTENT_FILTER -> "content_filter";
                    default -> "other";
                };
        return new Reply(ai.text(), calls, finish, u == null || u.inputTokenCount() == null ? 0 : u.inputTokenCount(),
                u == null || u.outputTokenCount() == null ? 0 : u.outputTokenCount(), resp.modelName(), cached(u));
    }

    /** {@code usage.prompt_tokens_details.cached_tokens} of an OpenAI-compatible reply, 0 when absent. */
    static long cached(TokenUsage u) {
        if (u instanceof OpenAiTokenUsage o && o.inputTokensDetails() != null
                && o.inputTokensDetails().cachedTokens() != null) {
            return o.inputTokensDetails().cachedTokens();
        }
        return 0;
    }

    static ChatMessage toLangchain(Message m) {
        return switch (m.role()) {
            case USER -> UserMessage.from(m.content() == null ? "" : m.content());
            case TOOL -> ToolExecutionResultMessage.from(m.toolCallId(), m.toolName(), m.content() == null ? "" : m.content());
            case ASSISTANT -> {
                if (!m.hasToolCalls()) {
                    yield AiMessage.from(m.content() == null ? "" : m.content());
                }
                List<ToolExecutionRequest> reqs = m.toolCalls().stream().map(c -> ToolExecutionRequest.builder()
                        .id(c.id()).name(c.name()).arguments(c.arguments() == null ? "{}" : c.arguments()).build()).toList();
                yield m.content() == null || m.content().isEmpty() ? AiMessage.from(reqs) : AiMessage.from(m.content(), reqs);
            }
        };
    }
}
