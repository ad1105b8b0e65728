package dev.cohort.lead.teammates.service;

import dev.cohort.core.engine.Budgets;
import dev.cohort.core.engine.Usage;
import java.util.Optional;

/**
 * The team's budget as {@code spawn_teammate} checks it ({@code cohort.engine.budgets.tokens-per-team} and
 * {@code cost-per-team-usd}; 0 = unlimited): a team that has used its budget gets no new teammate, which would only
 * stop at its first step. The team's own budgets ({@code PUT /api/v1/teams/{team}/budgets}) replace these
 * defaults ({@link #with}): raising the team's budget lets the lead spawn again.
 *
 * @param tokens  input + output tokens of all the team's agents together
 * @param costUsd USD of all the team's agents together
 */
public record TeamBudget(long tokens, double costUsd) {

    public static final TeamBudget UNLIMITED = new TeamBudget(0, 0);

    /** This budget with the team's overrides of {@code tokensPerTeam} / {@code costPerTeamUsd} in place. */
    public TeamBudget with(Budgets.Overrides o) {
        if (o == null) {
            return this;
        }
        return new TeamBudget(o.tokensPerTeam() != null ? o.tokensPerTeam() : tokens,
                o.costPerTeamUsd() != null ? o.costPerTeamUsd() : costUsd);
    }

    /** Why a spawn is refused when the team's {@code used} reached a budget; empty when it may spawn. */
    public Optional<String> refusal(String team, Usage used) {
        if (tokens > 0 && used.totalTokens() >= tokens) {
            return Optional.of("team " + team + " has used " + used.totalTokens() + " tokens, its budget "
                    + "cohort.engine.budgets.tokens-per-team is " + tokens + ": no new teammate can work");
        }
        if (costUsd > 0 && used.costUsd() >= costUsd) {
            return Optional.of("team " + team + " has cost " + String.format(java.util.Locale.ROOT, "%.6f", used.costUsd())
                    + " USD, its budget cohort.engine.budgets.cost-per-team-usd is " + costUsd + ": no new teammate can work");
        }
        return Optional.empty();
    }
}
