package dev.cohort.core.protocol.payload;

import dev.cohort.core.protocol.EventType;

/**
 * {@code budget_exceeded}: a budget was reached, the agent stopped at this step and its turn ends with reason
 * {@code budget_exceeded} (the {@code turn_completed} that follows).
 *
 * @param turnId  the turn that stops
 * @param budget  the budget's name (as in {@link BudgetWarning})
 * @param scope   {@code turn}, {@code agent}, {@code team} or {@code team-day}
 * @param used    the usage: tokens, or USD for the {@code cost…} budgets
 * @param limit   the budget, same unit
 * @param message the sentence that ends the turn, naming usage and budget
 */
public record BudgetExceeded(String turnId, String budget, String scope, double used, double limit, String message)
        implements EventPayload {
    @Override
    public EventType type() {
        return EventType.BUDGET_EXCEEDED;
    }
}
