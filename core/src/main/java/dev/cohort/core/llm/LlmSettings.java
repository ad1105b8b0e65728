package dev.cohort.core.llm;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Where the model lives and which one to use: any OpenAI-compatible chat-completions endpoint.
 * Services fill it from {@code cohort.llm.*}, which map to the seed's environment variables
 * {@code OPENAI_BASE_URL}, {@code OPENAI_API_KEY}, {@code MODEL_ID}, {@code FALLBACK_MODEL}.
 *
 * @param baseUrl the API root including {@code /v1}
 * @param apiKey the bearer key; empty means "not configured" (requests would fail with 401)
 * @param modelId the primary model
 * @param fallbackModel the model to switch to after repeated overloads, if any
 * @param timeout per request; long because a model may think for minutes
 */
public record LlmSettings(String baseUrl, String apiKey, String modelId, Optional<String> fallbackModel, Duration timeout) {

    /** OpenAI's public endpoint: the default when nothing is configured. */
    public static final String DEFAULT_BASE_URL = "https://api.openai.com/v1";
    /** A cheap, tool-capable default model. */
    public static final String DEFAULT_MODEL = "gpt-4o-mini";
    /** Requests to a model can legitimately take minutes (long outputs, reasoning). */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);

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
    }

    /** Reads the seed's environment variables (missing ones take the defaults). */
    public static LlmSettings fromEnv(Map<String, String> env) {
        return new LlmSettings(env.get("OPENAI_BASE_URL"), env.get("OPENAI_API_KEY"), env.get("MODEL_ID"),
                Optional.ofNullable(env.get("FALLBACK_MODEL")), null);
    }

    /** True when a key is set; without one the services still start and say how to configure a model. */
    public boolean hasApiKey() {
        return !apiKey.isBlank();
    }

    /** For logs: never the key itself. */
    @Override
    public String toString() {
        return "LlmSettings[baseUrl=" + baseUrl + ", model=" + modelId + ", fallback=" + fallbackModel.orElse("-")
                + ", apiKey=" + (hasApiKey() ? "***" : "<unset>") + ", timeout=" + timeout + "]";
    }
}
