package dev.cohort.core.engine;

/**
 * Persists an agent's state after every step (a model reply appended, a tool result appended, a turn ended). A
 * host that restores the saved state and calls {@link AgentSession#resume()} never re-executes a call whose result
 * was saved: the conversation itself is the tool-call journal.
 */
@FunctionalInterface
public interface StateStore {
    StateStore NONE = s -> {
    };

    void save(AgentState state);
}
