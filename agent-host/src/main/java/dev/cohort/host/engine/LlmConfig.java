package dev.cohort.host.engine;

import dev.cohort.core.llm.LlmSettings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The models' endpoints ({@code cohort.llm.*}, fed by OPENAI_BASE_URL, OPENAI_API_KEY, MODEL_ID, FALLBACK_MODEL,
 * COHORT_LLM_PROVIDER, ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY): the OpenAI-compatible wire by default, Anthropic's
 * Messages API for {@code provider=anthropic} or for the models {@code providers} names.
 */
@ConfigMapping(prefix = "cohort.llm")
public interface LlmConfig {
    /** OpenAI-compatible API root including /v1. */
    @WithDefault(LlmSettings.DEFAULT_BASE_URL)
    String baseUrl();

    /** API key; absent means no model is configured (the service still starts and says so). */
    Optional<String> apiKey();

    /** Primary model id. */
    @WithDefault(LlmSettings.DEFAULT_MODEL)
    String model();

    /** Model to switch to after repeated overloads. */
    Optional<String> fallbackModel();

    /** Per-request timeout: models may think for minutes. */
    @WithDefault("5m")
    Duration timeout();

    /** Every model's provider: {@code openai} (any OpenAI-compatible endpoint) or {@code anthropic}. */
    @WithDefault(LlmSettings.OPENAI)
    String provider();

    /** A provider per model name, over {@link #provider()} ({@code cohort.llm.providers."claude-sonnet-4-5"=anthropic}). */
    Map<String, String> providers();

    /** Anthropic's Messages API. */
    Anthropic anthropic();

    /** {@code cohort.llm.anthropic.*}. */
    interface Anthropic {
        /** The API root including /v1. */
        @WithDefault(LlmSettings.DEFAULT_ANTHROPIC_BASE_URL)
        String baseUrl();

        /** The key ({@code x-api-key}); absent means Anthropic's models are not configured. */
        Optional<String> apiKey();
    }

    /** As the core gateway's settings. */
    default LlmSettings settings() {
        return new LlmSettings(baseUrl(), apiKey().orElse(""), model(), fallbackModel(), timeout(), provider(),
                providers(), anthropic().baseUrl(), anthropic().apiKey().orElse(""));
    }
}
