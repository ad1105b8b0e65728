package dev.cohort.core.engine;

import java.util.function.Supplier;

/**
 * The team's own budgets ({@link AgentContext#budgets}) from a source that may serve them from a cache. The engine
 * reads them at every step; before it stops a turn for a budget it calls {@link #reread} and checks again, so a
 * budget raised at the source lets the step run even when the cached value said it was exceeded. A host whose
 * budgets are never stale (or a plain {@code Supplier}) needs none of this.
 */
public interface BudgetSource extends Supplier<Budgets.Overrides> {

    /**
     * Reads the budgets (and what comes with them, e.g. the team's usage today) from their source again, past any
     * cache, before the engine stops a turn on them. Blocks for that read.
     *
     * @return {@code true} when the values were read again (the engine then checks once more), {@code false} when
     *         nothing newer can be had (the source cannot be reached: the cached values stand)
     */
    boolean reread();
}
