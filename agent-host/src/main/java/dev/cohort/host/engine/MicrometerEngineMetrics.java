package dev.cohort.host.engine;

import dev.cohort.core.engine.EngineMetrics;
import dev.cohort.core.engine.StopReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The engine's observation points ({@link EngineMetrics}) on the service's Micrometer registry, shown on
 * {@code /q/metrics} as:
 * <ul>
 * <li>{@code cohort_model_calls_total{service,model,outcome}}: every model call attempt (retries count);</li>
 * <li>{@code cohort_tool_call_duration_seconds{service,tool,outcome}}: every tool call, as a histogram;</li>
 * <li>{@code cohort_turn_duration_seconds{service,reason}}: every main turn's end, as a histogram.</li>
 * </ul>
 * The timers publish histogram buckets (bounded by the expected ranges below) so Grafana computes p50/p95 with
 * {@code histogram_quantile} across replicas. Labels are bounded: outcomes and stop reasons are enums, tools are the
 * registered ones (an invented name is {@code unknown}), models come from configuration.
 */
@ApplicationScoped
public class MicrometerEngineMetrics implements EngineMetrics {

    /** Micrometer's dotted names (Prometheus adds {@code _total} / {@code _seconds} and underscores). */
    public static final String MODEL_CALLS = "cohort.model.calls";
    public static final String TOOL_CALL_DURATION = "cohort.tool.call.duration";
    public static final String TURN_DURATION = "cohort.turn.duration";

    @Inject
    MeterRegistry registry;

    /** The service label: the application's name without the {@code cohort-} prefix (e.g. {@code lead-service}). */
    @ConfigProperty(name = "quarkus.application.name", defaultValue = "cohort")
    String applicationName;

    String service() {
        return applicationName.startsWith("cohort-") ? applicationName.substring("cohort-".length()) : applicationName;
    }

    @Override
    public void modelCall(String model, ModelOutcome outcome, Duration took) {
        Counter.builder(MODEL_CALLS).description("model call attempts by model and outcome (retries count)")
                .tag("service", service()).tag("model", model).tag("outcome", outcome.label())
                .register(registry).increment();
    }

    @Override
    public void toolCall(String tool, ToolOutcome outcome, Duration took) {
        // tool calls: from a millisecond (a read served from cache) to the tool runner's longest timeout
        Timer.builder(TOOL_CALL_DURATION).description("tool calls as the agent saw them: gates, tool runner, hooks")
                .tag("service", service()).tag("tool", tool).tag("outcome", outcome.label())
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(10)).register(registry).record(took);
    }

    @Override
    public void turnEnded(StopReason reason, Duration took) {
        // turns: from a quick answer to a long tool-heavy turn
        Timer.builder(TURN_DURATION).description("main turns from their (re)start on this replica to their end")
                .tag("service", service()).tag("reason", reason.wire())
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(10))
                .maximumExpectedValue(Duration.ofMinutes(30)).register(registry).record(took);
    }
}
