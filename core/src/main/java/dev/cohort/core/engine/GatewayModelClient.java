package dev.cohort.core.engine;

import dev.cohort.core.engine.recovery.ProviderHttpClient;
import dev.cohort.core.llm.LlmGateway;
import dev.cohort.core.llm.LlmSettings;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiChatRequestParameters;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.TokenUsage;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link ModelClient} over langchain4j's OpenAI model: converts the engine's messages to langchain4j's and back.
 * Prefer {@link #GatewayModelClient(LlmSettings)}: it uses {@link ProviderHttpClient}, so error answers keep their
 * headers and recovery honours {@code Retry-After}; over a plain {@link LlmGateway} the computed backoff is used.
 */
public final class GatewayModelClient implements ModelClient {
    private final Chat chat;

    @FunctionalInterface
    private interface Chat {
        ChatResponse chat(String agentId, List<ChatMessage> messages, List<ToolSpecification> tools, String model,
                Integer maxOutputTokens);
    }

    public GatewayModelClient(LlmGateway gateway) {
        this.chat = gateway::chat;
    }

    /** A client for {@code settings} whose HTTP errors keep their headers ({@code Retry-After}). */
    public GatewayModelClient(LlmSettings settings) {
        ChatModel model = OpenAiChatModel.builder()
                .httpClientBuilder(ProviderHttpClient.builder())
                .baseUrl(settings.baseUrl())
                .apiKey(settings.hasApiKey() ? settings.apiKey() : "not-configured")
                .modelName(settings.modelId())
                .timeout(settings.timeout())
                .maxRetries(0) // retries, backoff and fallback are the engine's (s11 gap 17: no stacked retries)
                .build();
        this.chat = (agentId, messages, tools, modelName, maxOut) -> {
            OpenAiChatRequestParameters.Builder params = OpenAiChatRequestParameters.builder()
                    .modelName(modelName == null ? settings.modelId() : modelName)
                    .user(agentId);
            if (tools != null && !tools.isEmpty()) {
                params.toolSpecifications(tools);
            }
            if (maxOut != null) {
                params.maxOutputTokens(maxOut);
            }
            return model.chat(ChatRequest.builder().messages(messages).parameters(params.build()).build());
        };
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
        ChatResponse resp = chat.chat(r.agentId(), msgs, r.tools(), r.model(), r.maxOutputTokens());
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
                u == null || u.outputTokenCount() == null ? 0 : u.outputTokenCount(), resp.modelName());
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
