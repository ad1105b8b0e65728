package dev.cohort.platform.tracing;

import dev.cohort.core.trace.Tracing;
import io.opentelemetry.api.OpenTelemetry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The service's {@link Tracing} over the OpenTelemetry instance of {@code quarkus-opentelemetry}: a no-op
 * {@link Tracing#NOOP} while the SDK is disabled (the default; {@code COHORT_TRACING=true} turns it on) and in a
 * service without the extension. One per service: the engine, the Kafka publishers and consumers share it, so an
 * input's ingress context recorded by a consumer is the one the agent's turn takes.
 */
@ApplicationScoped
public class ServiceTracing {

    @Inject
    Instance<OpenTelemetry> otel;

    /** Quarkus's disabled SDK still hands out recording (unexported) spans: the engine gets the true no-op then. */
    @ConfigProperty(name = "quarkus.otel.sdk.disabled", defaultValue = "true")
    boolean sdkDisabled;

    // a singleton, not application-scoped: Tracing is a final class, so it cannot have a client proxy
    @Produces
    @Singleton
    Tracing tracing() {
        return !sdkDisabled && otel.isResolvable() ? new Tracing(otel.get()) : Tracing.NOOP;
    }
}
