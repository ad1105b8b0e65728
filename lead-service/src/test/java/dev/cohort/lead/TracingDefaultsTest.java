package dev.cohort.lead;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.trace.Tracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * Tracing is off unless asked for. Without {@code COHORT_TRACING} the nested default resolves to
 * {@code quarkus.otel.sdk.disabled=true}: the service's {@link Tracing} creates only invalid (no-op) spans, writes no
 * header and keeps no ingress, so services and tests that do not trace pay nothing. (The enabled path: TracingIT in
 * teammate-service, with real exports.)
 */
@QuarkusTest
class TracingDefaultsTest {

    @Inject
    Tracing tracing;

    @ConfigProperty(name = "quarkus.otel.sdk.disabled")
    boolean sdkDisabled;

    @ConfigProperty(name = "cohort.tracing.enabled")
    boolean tracingEnabled;

    @Test
    void theSdkIsDisabledByDefaultAndTheServicesTracingIsANoop() {
        assertThat(tracingEnabled).isFalse();
        assertThat(sdkDisabled).isTrue();
        Span span = tracing.start("probe", SpanKind.INTERNAL);
        try {
            assertThat(span.getSpanContext().isValid()).isFalse();
            Map<String, String> carrier = new HashMap<>();
            tracing.inject(Context.current().with(span), carrier, Map::put);
            assertThat(carrier).isEmpty();
            tracing.ingress("t", "lead", Context.current().with(span));
            assertThat(tracing.takeIngress("t", "lead")).isSameAs(Context.current());
        } finally {
            span.end();
        }
    }
}
