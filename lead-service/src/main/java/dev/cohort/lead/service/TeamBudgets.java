package dev.cohort.lead.service;

import dev.cohort.core.engine.Budgets;
import dev.cohort.lead.persistence.BudgetRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;

/**
 * The budgets a team's agents work under: the engine's {@code cohort.engine.budgets.*} defaults with the team's own
 * overrides ({@code PUT /api/v1/teams/{team}/budgets}) over them. The lead reads the overrides at every step, teammate
 * hosts over the internal API.
 * The day's usage ({@link #usageToday}) is read by the engine only while a per-day team budget is in force.
 */
@ApplicationScoped
public class TeamBudgets {

    @Inject
    LeadEngine engine;

    @Inject
    BudgetRepository repository;

    @Inject
    dev.cohort.lead.usage.UsageRepository usage;

    /** Where "today" comes from (UTC); a test sets another clock ({@link #useClock}). */
    private volatile Clock clock = Clock.systemUTC();

    /** Counts "today" by {@code c} from now on ({@code null}: the system's UTC clock again); for tests. */
    public void useClock(Clock c) {
        clock = c == null ? Clock.systemUTC() : c;
    }

    /** The configured defaults ({@code cohort.engine.budgets.*}, 0 = unlimited). */
    public Budgets defaults() {
        return engine.engine().settings().budgets();
    }

    /**
     * The team's overrides ({@link Budgets.Overrides#NONE} when none), from {@link BudgetRepository#cached}: read at
     * every step, so no query per step; another replica's change applies within {@code cohort.lead.budget-cache-ttl}.
     */
    public Budgets.Overrides overrides(String team) {
        return repository.cached(team);
    }

    /**
     * The team's usage in the current UTC day: every agent's model calls in the usage ledger ({@code lead.usage}) from
     * 00:00 UTC of {@link #clock}'s now. As fresh as the event log: a call counts once its {@code assistant_message}
     * is stored.
     */
    public dev.cohort.core.engine.Usage usageToday(String team) {
        return usage.teamUsageSince(team, Budgets.startOfUtcDay(clock.instant()));
    }

    /** {@link #usageToday} with the day it is of (the internal team API hands it to teammate hosts). */
    public Budgets.DayUsage dayUsage(String team) {
        java.time.Instant now = clock.instant();
        return new Budgets.DayUsage(LocalDate.ofInstant(now, ZoneOffset.UTC),
                usage.teamUsageSince(team, Budgets.startOfUtcDay(now)));
    }

    /** What the team's agents work under now. */
    public Budgets effective(String team) {
        return defaults().with(overrides(team));
    }
}
