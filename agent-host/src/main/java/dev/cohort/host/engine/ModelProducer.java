package dev.cohort.host.engine;

import dev.cohort.core.llm.GatewayModelClient;
import dev.cohort.core.llm.LlmGateway;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * Builds the one core LLM gateway of this replica from {@code cohort.llm.*}: one client per configured model (primary
 * and fallback), built once here, and the engine's {@link GatewayModelClient} over it, through which
 * {@link EngineAssembly} sends every model call (turns, compaction, memory).
 */
@ApplicationScoped
public class ModelProducer {

    @Produces
    @Singleton
    LlmGateway gateway(LlmConfig config) {
        var settings = config.settings();
        if (!settings.hasApiKey()) {
            Log.warnf("no model configured (OPENAI_API_KEY is not set): prompts will fail with a clear error until you set "
                    + "OPENAI_API_KEY (and OPENAI_BASE_URL / MODEL_ID for a non-OpenAI endpoint), or try `./cohort demo`");
        } else {
            Log.infof("model: %s", settings);
        }
        LlmGateway gateway = new LlmGateway(settings);
        Log.debugf("model clients: %s", gateway.models());
        return gateway;
    }

    /** The engine's model: error headers kept so Retry-After is honoured, the gateway's primary and fallback. */
    @Produces
    @Singleton
    GatewayModelClient model(LlmGateway gateway) {
        return new GatewayModelClient(gateway);
    }
}
