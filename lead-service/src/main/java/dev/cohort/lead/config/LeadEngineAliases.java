package dev.cohort.lead.config;

import dev.cohort.host.engine.EngineConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The lead's deprecated {@code cohort.lead.max-model-calls-per-turn} / {@code cohort.lead.approval-timeout}, for the
 * shared engine assembly and its start-up check (agent-host): read only when the {@code cohort.engine.*} key is unset.
 */
@ApplicationScoped
public class LeadEngineAliases {

    @Produces
    @Singleton
    static EngineConfig.DeprecatedAliases aliases(LeadConfig lead) {
        return lead.engineAliases();
    }
}
