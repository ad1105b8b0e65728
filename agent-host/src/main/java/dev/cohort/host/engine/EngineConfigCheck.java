package dev.cohort.lead.config;

import io.quarkus.logging.Log;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

/**
 * Refuses to start with an invalid {@code cohort.engine.*} value (a negative budget, a ratio above 1, …), naming the
 * property: the engine itself is built lazily, on a team's first turn, which is too late to learn of a typo.
 */
@ApplicationScoped
public class EngineConfigCheck {

    @Inject
    EngineConfig engine;

    @Inject
    LeadConfig lead;

    void check(@Observes StartupEvent ignored) {
        EngineConfig.toSettings(engine, lead);
        EngineConfig.toMemorySettings(engine);
        if (lead.approvalTimeout().isPresent()) {
            Log.warnf("cohort.lead.approval-timeout is deprecated: use cohort.engine.approval-timeout%s",
                    engine.approvalTimeout().isPresent() ? " (set too, and it wins)" : "");
        }
        if (lead.maxModelCallsPerTurn().isPresent()) {
            Log.warnf("cohort.lead.max-model-calls-per-turn is deprecated: use cohort.engine.max-model-calls-per-turn%s",
                    engine.maxModelCallsPerTurn().isPresent() ? " (set too, and it wins)" : "");
        }
    }
}
