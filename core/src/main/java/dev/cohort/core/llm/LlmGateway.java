package dev.cohort.core.llm;

import dev.cohort.core.engine.Message;
import dev.cohort.core.engine.ModelClient;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The one way Cohort talks to a model: a {@link ChatCompletionsClient} on any OpenAI-compatible endpoint, or an
 * {@link AnthropicMessagesClient} on Anthropic's Messages API (the model's provider, {@link LlmSettings#providerOf}),
 * <b>one client per configured model</b> (the primary and, if set, the fallback), built once here and shared by every caller of this
 * gateway (the engine through {@link dev.cohort.core.llm.GatewayModelClient}, memory extraction).
 * <ul>
 * <li>each client makes one attempt per call: retries, backoff and fallback are the engine's (no
 * stacked retries);</li>
 * <li>each client keeps an error answer's headers ({@link dev.cohort.core.engine.recovery.ProviderHttpException}), so
 * recovery honours {@code Retry-After};</li>
 * <li>each client writes the request straight from the engine's messages and reuses a tool set's schema JSON (issue
 * 13: langchain4j converted the whole conversation twice and serialised every schema on every round); the wire
 * format is still langchain4j's, whose {@code ToolSpecification} is the tools' API;</li>
 * <li>every request carries the OpenAI {@code user} field set to the agent id ({@code <team>/<name>}), so provider
 * logs and the scripted test model can tell agents apart.</li>
 * </ul>
 * A request for a model that is not configured is refused with a clear error rather than sent on some client.
 */
public final class LlmGateway {

    /** Builds the client of one configured model (production: {@link ChatCompletionsClient}; tests observe calls). */
    @FunctionalInterface
    interface ClientFactory {
        ModelClient build(LlmSettings settings, String modelName);
    }

    private final LlmSettings settings;
    /** Configured model name → its client; the primary first. */
    private final Map<String, ModelClient> clients;

    public LlmGateway(LlmSettings settings) {
        this(settings, LlmGateway::client);
    }

    /** The client of {@code modelName} on its provider's wire ({@link LlmSettings#providerOf}). */
    static ModelClient client(LlmSettings settings, String modelName) {
        return LlmSettings.ANTHROPIC.equals(settings.providerOf(modelName))
                ? new AnthropicMessagesClient(settings, modelName) : new ChatCompletionsClient(settings, modelName);
    }

    LlmGateway(LlmSettings settings, ClientFactory factory) {
        this.settings = Objects.requireNonNull(settings, "settings");
        Map<String, ModelClient> c = new LinkedHashMap<>();
        c.put(settings.modelId(), factory.build(settings, settings.modelId()));
        settings.fallbackModel().filter(f -> !f.equals(settings.modelId()))
                .ifPresent(f -> c.put(f, factory.build(settings, f)));
        this.clients = Collections.unmodifiableMap(c);
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
     * Sends one request on the client of {@code request.model()} (null: the primary); the request goes out with that
     * model name, the agent id as the OpenAI {@code user}, and the output limit if set.
     *
     * @throws IllegalArgumentException when the model is not one of {@link #models()}
     */
    public ModelClient.Reply chat(ModelClient.Request request) {
        String name = request.model() == null ? settings.modelId() : request.model();
        ModelClient client = clients.get(name);
        if (client == null) {
            throw new IllegalArgumentException("model \"" + name + "\" is not configured on this gateway (configured: "
                    + String.join(", ", clients.keySet()) + "; set cohort.llm.model / MODEL_ID or "
                    + "cohort.llm.fallback-model / FALLBACK_MODEL)");
        }
        return client.chat(request.model() == null ? new ModelClient.Request(request.agentId(), request.system(),
                request.messages(), request.tools(), name, request.maxOutputTokens()) : request);
    }

    /** Sends one request for an agent with the primary model, no tools and default limits. */
    public ModelClient.Reply chat(String agentId, String system, List<Message> messages) {
        return chat(new ModelClient.Request(agentId, system, messages, List.of(), null, null));
    }
}
