package dev.cohort.lead.usage;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * {@code cohort_tokens_total{team,agent,model,kind=prompt|completion|cached|cache_write}} and
 * {@code cohort_cost_total{team,agent,model}} (USD), counted once per ledger row this replica inserted, after the
 * transaction that inserted it committed. The labels are bounded: at most {@code cohort.usage.metrics.max-series}
 * (team, agent, model) combinations get their own series; the calls of any further one count under
 * {@code team="other", agent="other"} (its model kept: models are the operator's configured few).
 */
@ApplicationScoped
public class UsageMetrics {
    public static final String OTHER = "other";

    @Inject
    MeterRegistry registry;

    @ConfigProperty(name = "cohort.usage.metrics.max-series", defaultValue = "500")
    int maxSeries;

    private final Set<String> series = ConcurrentHashMap.newKeySet();

    UsageMetrics() {
    }

    /** Metrics on {@code registry} with at most {@code maxSeries} labelled series (outside CDI). */
    UsageMetrics(MeterRegistry registry, int maxSeries) {
        this.registry = registry;
        this.maxSeries = maxSeries;
    }

    /** Counts one model call's usage. */
    public void count(UsageRow u) {
        String model = u.model() == null ? "unknown" : u.model();
        String team = u.team();
        String agent = u.agent();
        String key = team + '\u0000' + agent + '\u0000' + model;
        if (!series.contains(key)) {
            synchronized (series) {
                if (!series.contains(key) && series.size() >= Math.max(0, maxSeries)) {
                    team = OTHER;
                    agent = OTHER;
                } else {
                    series.add(key);
                }
            }
        }
        tokens(team, agent, model, "prompt").increment(u.promptTokens());
        tokens(team, agent, model, "completion").increment(u.completionTokens());
        tokens(team, agent, model, "cached").increment(u.cachedTokens());
        tokens(team, agent, model, "cache_write").increment(u.cacheWriteTokens());
        Counter.builder("cohort.cost").baseUnit(null).description("Cost of model calls at the known prices, USD")
                .tags("team", team, "agent", agent, "model", model).register(registry).increment(u.costUsd());
    }

    /** Distinct (team, agent, model) series counted so far (at most {@code max-series}). */
    public int seriesCount() {
        return series.size();
    }

    private Counter tokens(String team, String agent, String model, String kind) {
        return Counter.builder("cohort.tokens").description("Tokens of model calls")
                .tags("team", team, "agent", agent, "model", model, "kind", kind).register(registry);
    }
}
