package dev.cohort.core.engine;

import java.util.function.Consumer;

/**
 * Persists an agent's state after every step (a model reply appended, a tool result appended, a turn parked or
 * ended). A host that restores the saved state and calls {@link AgentSession#resume()} never re-executes a call whose
 * result was saved: the conversation itself is the tool-call journal.
 */
@FunctionalInterface
public interface StateStore {
    StateStore NONE = step -> {
    };

    /**
     * Saves one step ({@link StepSave}): its state, the inputs it takes in (marked taken in the same transaction) and,
     * when the store {@link #storesEvents() stores events}, its events in that transaction too, so the step and its
     * events are stored together or not at all. When the save throws, nothing of it was stored and the same ids and
     * events come again with the next save.
     */
    void save(StepSave step);

    /**
     * {@code true} when the store keeps the event log in the same database: a step's events are handed to it in the
     * {@link StepSave}; otherwise the engine emits them after the save and the step carries none.
     */
    default boolean storesEvents() {
        return false;
    }

    /** A store that ignores the inbox ids (tests, hosts without an inbox). */
    static StateStore of(Consumer<AgentState> save) {
        return step -> save.accept(step.state());
    }
}
