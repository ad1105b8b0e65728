package dev.cohort.lead.service;

import dev.cohort.core.engine.Budgets;
import dev.cohort.lead.persistence.BudgetRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * The budgets a team's agents work under: the engine's {@code cohort.engine.budgets.*} defaults with the team's own
 * overrides ({@code PUT /api/v1/teams/{team}/budgets}) over them. The lead reads the overrides at every step, teammate
 * hosts over the internal API.
 */
@ApplicationScoped
public class TeamBudgets {

    @Inject
    LeadEngine engine;

    @Inject
    BudgetRepository repository;

    /** The configured defaults ({@code cohort.engine.budgets.*}, 0 = unlimited). */
    public Budgets defaults() {
        return engine.engine().settings().budgets();
    }

    /** The team's overrides ({@link Budgets.Overrides#NONE} when none). */
    public Budgets.Overrides overrides(String team) {
        return repository.find(team);
    }

    /** What the team's agents work under now. */
    public Budgets effective(String team) {
        return defaults().with(overrides(team));
    }
}
