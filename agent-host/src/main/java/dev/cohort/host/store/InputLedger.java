package dev.cohort.host.store;

import dev.cohort.core.engine.AgentState;
import dev.cohort.core.host.AgentKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * Marks a service's inputs (inbox rows, prompts) as taken into an agent's state, inside the transaction of the save
 * that contains them, so an input is either in the saved conversation and marked, or neither.
 */
@FunctionalInterface
public interface InputLedger {
    InputLedger NONE = (c, key, state, ids) -> {
    };

    /**
     * Called with every save, in its transaction, after the state row was written.
     *
     * @param state       the state just written (its turn in progress, if any, says which turn the inputs joined)
     * @param injectedIds the ids of the inputs this state contains for the first time (often empty)
     */
    void saved(Connection c, AgentKey key, AgentState state, List<String> injectedIds) throws SQLException;

    /**
     * Called before a save that stores events opens its transaction (e.g. to wait for an event of the agent's team
     * still being stored on another thread, so the step's events come after it). Default: nothing.
     */
    default void beforeSave(AgentKey key) {
    }

    /** {@code true} when this ledger stores the step's events in the save's transaction ({@link #storeEvents}). */
    default boolean storesEvents() {
        return false;
    }

    /**
     * Stores a step's events in the save's transaction, after {@link #saved}, and returns them as stored (e.g. with
     * their sequence numbers) for {@link #eventsCommitted}. Only called when {@link #storesEvents()}.
     */
    default List<dev.cohort.core.protocol.Event> storeEvents(Connection c, AgentKey key,
            List<dev.cohort.core.protocol.Event> events) throws SQLException {
        throw new UnsupportedOperationException("this ledger does not store events");
    }

    /** After the commit of a save that stored events: announces them (must not throw; they are stored). */
    default void eventsCommitted(AgentKey key, List<dev.cohort.core.protocol.Event> stored) {
    }
}
