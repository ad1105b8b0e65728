package dev.cohort.host.store;

import dev.cohort.core.host.AgentKey;
import dev.cohort.core.protocol.Event;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * An {@link InputLedger} that also keeps the event log: a step's events are stored with the step, in the save's
 * transaction (or by the save's own statement, {@link #eventsClause}), and announced after the commit.
 */
public interface EventLedger extends InputLedger {

    /** {@code true} when this ledger has an event log to store into (one made without it stores none). */
    default boolean storesEvents() {
        return true;
    }

    /**
     * Stores a step's events in the save's transaction, after {@link #saved}, and returns them as stored (e.g. with
     * their sequence numbers) for {@link #eventsCommitted}.
     */
    List<Event> storeEvents(Connection c, AgentKey key, List<Event> events) throws SQLException;

    /**
     * The step's {@code events} stored by the save's own statement ({@link EventsClause}), or {@code null} (the
     * default) to store them by {@link #storeEvents} in the save's transaction. Only asked for a save whose ledger
     * {@link #writesNothing}.
     */
    default EventsClause eventsClause(AgentKey key, List<Event> events) {
        return null;
    }

    /**
     * Called before a save that stores events opens its transaction (e.g. to wait for an event of the agent's team
     * still being stored on another thread, so the step's events come after it). Default: nothing.
     */
    default void beforeSave(AgentKey key) {
    }

    /** After the commit of a save that stored events: announces them (must not throw; they are stored). */
    default void eventsCommitted(AgentKey key, List<Event> stored) {
    }
}
