package dev.cohort.host.engine;

import io.quarkus.logging.Log;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

/**
 * Refuses to start with an invalid {@code cohort.engine.*} value (a negative budget, a ratio above 1, …) or an invalid
 * deprecated alias of the service, naming the property: the engine itself is built lazily, on an agent's first turn,
 * which is too late to learn of a typo. Warns when a deprecated alias is set.
 */
@ApplicationScoped
public class EngineConfigCheck {

    @Inject
    EngineConfig engine;

    @Inject
    Instance<EngineConfig.DeprecatedAliases> aliases;

    void check(@Observes StartupEvent ignored) {
        EngineConfig.DeprecatedAliases legacy = aliases.isResolvable() ? aliases.get() : EngineConfig.DeprecatedAliases.NONE;
        EngineConfig.toSettings(engine, legacy);
        EngineConfig.toMemorySettings(engine);
        EngineConfig.toMemoryWork(engine);
        EngineConfig.toToolRunnerRetry(engine);
        if (legacy.approvalTimeout().isPresent()) {
            Log.warnf("%sapproval-timeout is deprecated: use cohort.engine.approval-timeout%s", legacy.prefix(),
                    engine.approvalTimeout().isPresent() ? " (set too, and it wins)" : "");
        }
        if (legacy.maxModelCallsPerTurn().isPresent()) {
            Log.warnf("%smax-model-calls-per-turn is deprecated: use cohort.engine.max-model-calls-per-turn%s",
                    legacy.prefix(), engine.maxModelCallsPerTurn().isPresent() ? " (set too, and it wins)" : "");
        }
    }
}
