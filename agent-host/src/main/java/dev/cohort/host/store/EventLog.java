package dev.cohort.host.store;

import dev.cohort.core.protocol.Event;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * A service's event log, as an {@link EventLedger} stores a step's events with the step's save: by the save's own
 * statement ({@link #clause}) or in its transaction ({@link #storeIn}), then announced after the commit.
 */
public interface EventLog {

    /** Stores new events of one team in the caller's transaction; returns them as stored (with their seq). */
    List<Event> storeIn(Connection c, List<Event> events) throws SQLException;

    /** Events stored by a committed save: announced (must not throw; they are stored). */
    void committed(List<Event> stored);

    /**
     * The events stored by the save's own statement, or null to store them by {@link #storeIn} in its transaction.
     * Default null.
     */
    default EventsClause clause(List<Event> events) {
        return null;
    }

    /** Before a save that stores events opens its transaction: the team's event stored ahead is in first. */
    default void beforeStore(String team) {
    }
}
