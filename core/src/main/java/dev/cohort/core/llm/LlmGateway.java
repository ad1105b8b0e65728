package dev.cohort.core.llm;

import dev.cohort.core.engine.recovery.ProviderHttpClient;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiChatRequestParameters;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The one way Cohort talks to a model: langchain4j {@link ChatModel}s on any OpenAI-compatible endpoint, <b>one
 * client per configured model</b> (the primary and, if set, the fallback), built once here and shared by every
 * caller of this gateway (the engine through {@link dev.cohort.core.engine.GatewayModelClient}, memory extraction).
 * <ul>
 * <li>each client is built with {@code maxRetries(0)}: retries, backoff and fallback are the engine's (seed s11,
 * gap 17: no stacked retries);</li>
 * <li>each client uses {@link ProviderHttpClient} (given explicitly: a Quarkus app may carry a second langchain4j
 * HTTP client on its classpath), so an error answer keeps its headers and recovery honours {@code Retry-After};</li>
 * <li>every request carries the OpenAI {@code user} field set to the agent id ({@code <team>/<name>}), so provider
 * logs and the scripted test model can tell agents apart.</li>
 * </ul>
 * A request for a model that is not configured is refused with a clear error rather than sent on some client.
 */
public final class LlmGateway {

    /** Builds the client of one configured model (production: {@link #openAi}; tests observe the calls). */
    @FunctionalInterface
    interface ClientFactory {
        ChatModel build(LlmSettings settings, String modelName);
    }

    private final LlmSettings settings;
    /** Configured model name → its client; the primary first. */
    private final Map<String, ChatModel> clients;

    public LlmGateway(LlmSettings settings) {
        this(settings, LlmGateway::openAi);
    }

    LlmGateway(LlmSettings settings, ClientFactory factory) {
        this.settings = Objects.requireNonNull(settings, "settings");
        Map<String, ChatModel> c = new LinkedHashMap<>();
        c.put(settings.modelId(), factory.build(settings, settings.modelId()));
        settings.fallbackModel().filter(f -> !f.equals(settings.modelId()))
                .ifPresent(f -> c.put(f, factory.build(settings, f)));
        this.clients = java.util.Collections.unmodifiableMap(c);
    }

    /** The production client of one model: OpenAI-compatible, headers kept on errors, no retries of its own. */
    static ChatModel openAi(LlmSettings settings, String modelName) {
        return OpenAiChatModel.builder()
                .httpClientBuilder(ProviderHttpClient.builder())
                .baseUrl(settings.baseUrl())
                .apiKey(settings.hasApiKey() ? settings.apiKey() : "not-configured")
                .modelName(modelName)
                .timeout(settings.timeout())
                .maxRetries(0)
                .build();
    }

    public LlmSettings settings() {
        return settings;
    }

    /** The primary model's name ({@code cohort.llm.model} / {@code MODEL_ID}). */
    public String primaryModel() {
        return settings.modelId();
    }

    /** The fallback model's name ({@code cohort.llm.fallback-model} / {@code FALLBACK_MODEL}), if one is configured. */
    public Optional<String> fallbackModel() {
        return settings.fallbackModel().filter(f -> !f.equals(settings.modelId()));
    }

    /** The models this gateway has a client for, the primary first. */
    public List<String> models() {
        return List.copyOf(clients.keySet());
    }

    /**
     * Sends one request for an agent on the client of {@code modelName}.
     *
     * @param agentId {@code <team>/<name>}, sent as the OpenAI {@code user}
     * @param modelName the model for this call (primary or fallback), null for the primary
     * @param maxOutputTokens output limit, null for the provider's default
     * @throws IllegalArgumentException when {@code modelName} is not one of {@link #models()}
     */
    public ChatResponse chat(String agentId, List<ChatMessage> messages, List<ToolSpecification> tools, String modelName,
            Integer maxOutputTokens) {
        String name = modelName == null ? settings.modelId() : modelName;
        ChatModel client = clients.get(name);
        if (client == null) {
            throw new IllegalArgumentException("model \"" + name + "\" is not configured on this gateway (configured: "
                    + String.join(", ", clients.keySet()) + "; set cohort.llm.model / MODEL_ID or "
                    + "cohort.llm.fallback-model / FALLBACK_MODEL)");
        }
        OpenAiChatRequestParameters.Builder params = OpenAiChatRequestParameters.builder().modelName(name).user(agentId);
        if (tools != null && !tools.isEmpty()) {
            params.toolSpecifications(tools);
        }
        if (maxOutputTokens != null) {
            params.maxOutputTokens(maxOutputTokens);
        }
        return client.chat(ChatRequest.builder().messages(messages).parameters(params.build()).build());
    }

    /** Sends one request for an agent with the primary model and default limits. */
    public ChatResponse chat(String agentId, List<ChatMessage> messages) {
        return chat(agentId, messages, List.of(), null, null);
    }
}
