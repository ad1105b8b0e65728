package dev.cohort.core.llm;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiChatRequestParameters;
import java.util.List;

/**
 * The one way Cohort talks to a model: a langchain4j {@link ChatModel} on any OpenAI-compatible endpoint,
 * built with {@code maxRetries(0)} because retries, backoff and fallback are the engine's (seed s11), and
 * every request carries the OpenAI {@code user} field set to the agent id ({@code <team>/<name>}), so provider
 * logs and the scripted test model can tell agents apart.
 */
public final class LlmGateway {

    private final LlmSettings settings;
    private final ChatModel model;

    public LlmGateway(LlmSettings settings) {
        this.settings = settings;
        this.model = OpenAiChatModel.builder()
                // the JDK client explicitly: a Quarkus app may carry a second langchain4j HTTP client on its classpath
                .httpClientBuilder(JdkHttpClient.builder())
                .baseUrl(settings.baseUrl())
                .apiKey(settings.hasApiKey() ? settings.apiKey() : "not-configured")
                .modelName(settings.modelId())
                .timeout(settings.timeout())
                .maxRetries(0)
                .build();
    }

    public LlmSettings settings() {
        return settings;
    }

    /** The underlying model, for callers that build their own {@link ChatRequest}s (use {@link #chat} to get the user field). */
    public ChatModel model() {
        return model;
    }

    /**
     * Sends one request for an agent.
     *
     * @param agentId {@code <team>/<name>}, sent as the OpenAI {@code user}
     * @param modelName the model for this call (primary or fallback), null for the primary
     * @param maxOutputTokens output limit, null for the provider's default
     */
    public ChatResponse chat(String agentId, List<ChatMessage> messages, List<ToolSpecification> tools, String modelName,
            Integer maxOutputTokens) {
        OpenAiChatRequestParameters.Builder params = OpenAiChatRequestParameters.builder()
                .modelName(modelName == null ? settings.modelId() : modelName)
                .user(agentId);
        if (tools != null && !tools.isEmpty()) {
            params.toolSpecifications(tools);
        }
        if (maxOutputTokens != null) {
            params.maxOutputTokens(maxOutputTokens);
        }
        return model.chat(ChatRequest.builder().messages(messages).parameters(params.build()).build());
    }

    /** Sends one request for an agent with the primary model and default limits. */
    public ChatResponse chat(String agentId, List<ChatMessage> messages) {
        return chat(agentId, messages, List.of(), null, null);
    }
}
