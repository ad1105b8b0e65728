package dev.cohort.teammate.agent;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.List;

/**
 * The gauge {@code cohort.teammates.running} ({@code cohort_teammates_running} on {@code /q/metrics}): teammates this
 * replica hosts that are busy — working (in a turn or queued for a turn slot) or parked on an approval or a reply.
 * KEDA scales teammate-service on its sum over the replicas (k8s/README.md "How teammates scale"), because inbox lag
 * alone misses replicas busy on long turns with nothing left to read.
 */
@ApplicationScoped
public class TeammateMetrics {

    /** The gauge's name (Micrometer's dotted form; Prometheus shows it with underscores). */
    public static final String RUNNING = "cohort.teammates.running";

    /**
     * The gauge {@code cohort.teammates{state}} ({@code cohort_teammates} on {@code /q/metrics}): this replica's
     * teammates by state, as its host knows them ({@code AgentHost#stateCounts}); the dashboard's teammates panel.
     */
    public static final String BY_STATE = "cohort.teammates";

    /** The states of {@link #BY_STATE}. */
    static final List<String> STATES = List.of("running", "parked", "idle");

    @Inject
    MeterRegistry registry;

    @Inject
    TeammateHost host;

    void register(@Observes StartupEvent ev) {
        Gauge.builder(RUNNING, host, h -> h.agentHost().busyCount())
                .description("teammates hosted by this replica that are working or waiting on an approval or a reply")
                .register(registry);
        for (String state : STATES) {
            Gauge.builder(BY_STATE, host, h -> h.agentHost().stateCounts().getOrDefault(state, 0))
                    .description("teammates this replica hosts, by state: running (a turn or waiting for a slot), "
                            + "parked (an approval or a reply), idle (waiting for input)")
                    .tag("state", state).register(registry);
        }
    }
}
