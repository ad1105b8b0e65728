package dev.cohort.lead.teammates;

import dev.cohort.core.engine.Budgets;
import dev.cohort.core.engine.Usage;
import java.util.Locale;
import java.util.Optional;

/**
 * The team's budget as {@code spawn_teammate} checks it ({@code cohort.engine.budgets.tokens-per-team},
 * {@code cost-per-team-usd} and their per-UTC-day forms {@code tokens-per-team-per-day},
 * {@code cost-per-team-per-day-usd}; 0 = unlimited): a team that has used its budget gets no new teammate, which would
 * only stop at its first step. The team's own budgets ({@code PUT /api/v1/teams/{team}/budgets}) replace these
 * defaults ({@link #with}): raising the team's budget lets the lead spawn again.
 *
 * @param tokens        input + output tokens of all the team's agents together
 * @param costUsd       USD of all the team's agents together
 * @param tokensPerDay  input + output tokens of all the team's agents within the current UTC day
 * @param costPerDayUsd USD of all the team's agents within the current UTC day
 */
public record TeamBudget(long tokens, double costUsd, long tokensPerDay, double costPerDayUsd) {

    public static final TeamBudget UNLIMITED = new TeamBudget(0, 0, 0, 0);

    /** A budget over the team's life only. */
    public TeamBudget(long tokens, double costUsd) {
        this(tokens, costUsd, 0, 0);
    }

    /** This budget with the team's overrides of the team's (and the team's per-day) budgets in place. */
    public TeamBudget with(Budgets.Overrides o) {
        if (o == null) {
            return this;
        }
        return new TeamBudget(o.tokensPerTeam() != null ? o.tokensPerTeam() : tokens,
                o.costPerTeamUsd() != null ? o.costPerTeamUsd() : costUsd,
                o.tokensPerTeamPerDay() != null ? o.tokensPerTeamPerDay() : tokensPerDay,
                o.costPerTeamPerDayUsd() != null ? o.costPerTeamPerDayUsd() : costPerDayUsd);
    }

    /** Whether a per-day budget is set (the day's usage is then read). */
    public boolean limitsDay() {
        return tokensPerDay > 0 || costPerDayUsd > 0;
    }

    /** {@link #refusal(String, Usage, Usage)} without the day's usage (the per-day budgets not checked). */
    public Optional<String> refusal(String team, Usage used) {
        return refusal(team, used, null);
    }

    /**
     * Why a spawn is refused when the team's {@code used} (over its life) or {@code usedToday} (since 00:00 UTC;
     * {@code null}: not checked) reached a budget; empty when it may spawn.
     */
    public Optional<String> refusal(String team, Usage used, Usage usedToday) {
        if (tokens > 0 && used.totalTokens() >= tokens) {
            return Optional.of("team " + team + " has used " + used.totalTokens() + " tokens, its budget "
                    + "cohort.engine.budgets.tokens-per-team is " + tokens + ": no new teammate can work");
        }
        if (costUsd > 0 && used.costUsd() >= costUsd) {
            return Optional.of("team " + team + " has cost " + usd(used.costUsd())
                    + " USD, its budget cohort.engine.budgets.cost-per-team-usd is " + costUsd + ": no new teammate can work");
        }
        if (usedToday == null) {
            return Optional.empty();
        }
        if (tokensPerDay > 0 && usedToday.totalTokens() >= tokensPerDay) {
            return Optional.of("team " + team + " has used " + usedToday.totalTokens() + " tokens today (UTC), its "
                    + "budget cohort.engine.budgets.tokens-per-team-per-day is " + tokensPerDay
                    + ": no new teammate can work before it resets at 00:00 UTC");
        }
        if (costPerDayUsd > 0 && usedToday.costUsd() >= costPerDayUsd) {
            return Optional.of("team " + team + " has cost " + usd(usedToday.costUsd()) + " USD today (UTC), its "
                    + "budget cohort.engine.budgets.cost-per-team-per-day-usd is " + costPerDayUsd
                    + ": no new teammate can work before it resets at 00:00 UTC");
        }
        return Optional.empty();
    }

    private static String usd(double v) {
        return String.format(Locale.ROOT, "%.6f", v);
    }
}
