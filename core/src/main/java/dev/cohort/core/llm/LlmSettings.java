package dev.cohort.core.llm;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Where the models live and which ones to use. Services fill it from {@code cohort.llm.*}, which map to the seed's
 * environment variables ({@code OPENAI_BASE_URL}, {@code OPENAI_API_KEY}, {@code MODEL_ID}, {@code FALLBACK_MODEL})
 * and to Anthropic's ({@code ANTHROPIC_BASE_URL}, {@code ANTHROPIC_API_KEY}).
 *
 * <p>Each model is reached on one wire, its provider's:
 * <ul>
 * <li>{@value #OPENAI}: any OpenAI-compatible chat-completions endpoint ({@link ChatCompletionsClient}), the default;</li>
 * <li>{@value #ANTHROPIC}: Anthropic's Messages API, with prompt caching ({@link AnthropicMessagesClient}).</li>
 * </ul>
 * {@code provider} is every model's unless {@code providers} names another for that model, so the fallback model may
 * be on the other provider.
 *
 * @param baseUrl          the OpenAI-compatible API root including {@code /v1}
 * @param apiKey           its bearer key; empty means "not configured" (requests would fail with 401)
 * @param modelId          the primary model
 * @param fallbackModel    the model to switch to after repeated overloads, if any
 * @param timeout          per request; long because a model may think for minutes
 * @param provider         the models' provider: {@value #OPENAI} or {@value #ANTHROPIC}
 * @param providers        a provider per model name, over {@code provider}
 * @param anthropicBaseUrl Anthropic's API root including {@code /v1}
 * @param anthropicApiKey  Anthropic's key ({@code x-api-key}); empty means "not configured"
 */
public record LlmSettings(String baseUrl, String apiKey, String modelId, Optional<String> fallbackModel, Duration timeout,
        String provider, Map<String, String> providers, String anthropicBaseUrl, String anthropicApiKey) {

    /** OpenAI's public endpoint: the default when nothing is configured. */
    public static final String DEFAULT_BASE_URL = "https://api.openai.com/v1";
    /** Anthropic's public endpoint. */
    public static final String DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com/v1";
    /** A cheap, tool-capable default model. */
    public static final String DEFAULT_MODEL = "gpt-4o-mini";
    /** Requests to a model can legitimately take minutes (long outputs, reasoning). */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);
    /** The OpenAI chat-completions wire. */
    public static final String OPENAI = "openai";
    /** Anthropic's Messages API. */
    public static final String ANTHROPIC = "anthropic";

    public LlmSettings {
        if (baseUrl == null || baseUrl.isBlank()) {
            baseUrl = DEFAULT_BASE_URL;
        }
        apiKey = apiKey == null ? "" : apiKey;
        if (modelId == null || modelId.isBlank()) {
            modelId = DEFAULT_MODEL;
        }
        fallbackModel = fallbackModel == null ? Optional.empty() : fallbackModel.filter(s -> !s.isBlank());
        timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
        provider = checked(provider == null || provider.isBlank() ? OPENAI : provider, "cohort.llm.provider");
        Map<String, String> p = new java.util.LinkedHashMap<>();
        if (providers != null) {
            providers.forEach((model, name) -> p.put(model, checked(name, "cohort.llm.providers.\"" + model + "\"")));
        }
        providers = Map.copyOf(p);
        if (anthropicBaseUrl == null || anthropicBaseUrl.isBlank()) {
            anthropicBaseUrl = DEFAULT_ANTHROPIC_BASE_URL;
        }
        anthropicApiKey = anthropicApiKey == null ? "" : anthropicApiKey;
    }

    /** Every model on the OpenAI-compatible endpoint. */
    public LlmSettings(String baseUrl, String apiKey, String modelId, Optional<String> fallbackModel,
            Duration timeout) {
        this(baseUrl, apiKey, modelId, fallbackModel, timeout, OPENAI, Map.of(), null, null);
    }

    private static String checked(String name, String key) {
        String n = name.strip().toLowerCase(Locale.ROOT);
        if (!n.equals(OPENAI) && !n.equals(ANTHROPIC)) {
            throw new IllegalArgumentException(key + " is '" + name + "': a provider is " + OPENAI + " (any"
                    + " OpenAI-compatible chat-completions endpoint) or " + ANTHROPIC + " (Anthropic's Messages API)");
        }
        return n;
    }

    /** The provider of model {@code model}. */
    public String providerOf(String model) {
        return providers.getOrDefault(model, provider);
    }

    /** Reads the seed's environment variables and Anthropic's (missing ones take the defaults). */
    public static LlmSettings fromEnv(Map<String, String> env) {
        return new LlmSettings(env.get("OPENAI_BASE_URL"), env.get("OPENAI_API_KEY"), env.get("MODEL_ID"),
                Optional.ofNullable(env.get("FALLBACK_MODEL")), null, env.get("COHORT_LLM_PROVIDER"), Map.of(),
                env.get("ANTHROPIC_BASE_URL"), env.get("ANTHROPIC_API_KEY"));
    }

    /** True when the primary model's provider has a key; without one the services still start and say how. */
    public boolean hasApiKey() {
        return ANTHROPIC.equals(providerOf(modelId)) ? !anthropicApiKey.isBlank() : !apiKey.isBlank();
    }

    /** For logs: never the keys themselves. */
    @Override
    public String toString() {
        return "LlmSettings[provider=" + provider + (providers.isEmpty() ? "" : ", providers=" + providers)
                + ", baseUrl=" + baseUrl + ", anthropicBaseUrl=" + anthropicBaseUrl + ", model=" + modelId
                + ", fallback=" + fallbackModel.orElse("-") + ", apiKey=" + (apiKey.isBlank() ? "<unset>" : "***")
                + ", anthropicApiKey=" + (anthropicApiKey.isBlank() ? "<unset>" : "***") + ", timeout=" + timeout + "]";
    }
}
