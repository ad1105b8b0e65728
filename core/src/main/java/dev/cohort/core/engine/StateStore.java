package dev.cohort.core.engine;

import java.util.List;
import java.util.function.Consumer;

/**
 * Persists an agent's state after every step (a model reply appended, a tool result appended, a turn parked or
 * ended). A host that restores the saved state and calls {@link AgentSession#resume()} never re-executes a call whose
 * result was saved: the conversation itself is the tool-call journal.
 */
@FunctionalInterface
public interface StateStore {
    StateStore NONE = (s, ids) -> {
    };

    /**
     * Saves {@code state}. {@code injectedIds} are the {@link InboxItem#id() ids} of the inbox items this state
     * contains for the first time (empty for most steps); a host marks them injected in the same transaction. When
     * the save throws, the same ids are passed again with the next save.
     */
    void save(AgentState state, List<String> injectedIds);

    /** A store that ignores the inbox ids (tests, hosts without an inbox). */
    static StateStore of(Consumer<AgentState> save) {
        return (s, ids) -> save.accept(s);
    }
}
