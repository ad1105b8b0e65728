package dev.cohort.core.engine;

import dev.cohort.core.protocol.Event;
import java.util.function.Consumer;
import java.util.List;

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

    /**
     * {@code true} when {@link #save(AgentState, List, List)} stores the step's events in the save's own transaction
     * (a host that keeps the event log in the same database); otherwise the engine emits them after the save.
     */
    default boolean storesEvents() {
        return false;
    }

    /**
     * Saves {@code state} and, in the same transaction, stores {@code events} (the step's events, in order: the
     * reply's {@code assistant_message}, a call's {@code tool_call_finished}), so the step and its events are stored
     * together or not at all. Only called when {@link #storesEvents()}; when it throws, neither was stored and the
     * events go with the next save.
     */
    default void save(AgentState state, List<String> injectedIds, List<Event> events) {
        throw new UnsupportedOperationException("this store does not store events");
    }

    /** A store that ignores the inbox ids (tests, hosts without an inbox). */
    static StateStore of(Consumer<AgentState> save) {
        return (s, ids) -> save.accept(s);
    }
}
