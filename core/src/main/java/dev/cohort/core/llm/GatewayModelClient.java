package dev.cohort.core.llm;

import dev.cohort.core.engine.EngineSettings;
import dev.cohort.core.engine.ModelClient;
import dev.cohort.core.engine.recovery.MalformedModelResponse;
import dev.cohort.core.engine.recovery.ModelFailure;
import dev.cohort.core.llm.LlmGateway;
import java.util.Objects;

/**
 * The engine's {@link ModelClient} over the {@link LlmGateway}: sends every call through the gateway's client of the
 * requested model (which writes the engine's messages on the wire itself), and names any failure to read a 200
 * answer as a {@link MalformedModelResponse}. It builds no client of its own, so
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
        Reply reply;
        try {
            reply = gateway.chat(r);
        } catch (RuntimeException e) {
            // HTTP errors, timeouts and I/O keep their own classification; anything else failed while reading a 200
            if (ModelFailure.classify(e).kind() == ModelFailure.Kind.OTHER && !Thread.currentThread().isInterrupted()) {
                throw MalformedModelResponse.of(e);
            }
            throw e;
        }
        if (reply == null) {
            throw new MalformedModelResponse("the model's answer is not a usable chat completion: it has no message",
                    null);
        }
        return reply;
    }
}
