package dev.cohort.core.protocol.payload;

import dev.cohort.core.protocol.EventType;

/**
 * {@code budget_warning}: one model call took a budget's usage past 80 % of it; once per budget per turn, agent life,
 * team or team's UTC day (the call that crosses the mark), not at every step.
 *
 * @param turnId  the turn whose call crossed the mark
 * @param budget  the budget's name ({@code tokensPerTurn}, {@code tokensPerAgent}, {@code tokensPerTeam},
 *                {@code costPerTurnUsd}, {@code costPerAgentUsd}, {@code costPerTeamUsd}, {@code tokensPerTeamPerDay},
 *                {@code costPerTeamPerDayUsd})
 * @param scope   {@code turn}, {@code agent}, {@code team} or {@code team-day}
 * @param used    the usage after the call: tokens, or USD for the {@code cost…} budgets
 * @param limit   the budget, same unit
 * @param percent {@code used} in percent of {@code limit}, rounded
 * @param message the warning in words
 */
public record BudgetWarning(String turnId, String budget, String scope, double used, double limit, long percent,
        String message) implements EventPayload {
    @Override
    public EventType type() {
        return EventType.BUDGET_WARNING;
    }
}
