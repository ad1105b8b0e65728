package dev.cohort.host.engine;

import dev.cohort.core.llm.LlmSettings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/** The model endpoint ({@code cohort.llm.*}, fed by OPENAI_BASE_URL, OPENAI_API_KEY, MODEL_ID, FALLBACK_MODEL). */
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

    /** As the core gateway's settings. */
    default LlmSettings settings() {
        return new LlmSettings(baseUrl(), apiKey().orElse(""), model(), fallbackModel(), timeout());
    }
}
