package dev.cohort.host.store;

import dev.cohort.core.protocol.Event;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * A step's events stored by the save's own statement ({@link InputLedger#eventsClause}). {@link PgAgentStore} writes a
 * usual save (the state row fenced, its new messages appended) as one statement: {@code WITH u AS (UPDATE … RETURNING
 * version, team, name), ins AS (INSERT … messages) SELECT u.version FROM u}. A clause adds data-modifying CTEs to it
 * and expressions to its final select list. When the ledger has nothing else to write for the save ({@link
 * InputLedger#writesNothing}), the whole save — state, messages and events — is then that one statement, run in
 * auto-commit: one round trip to PostgreSQL, atomic by itself, where the transaction took four or five.
 *
 * <p>Rules for the SQL: CTE names other than {@code u} and {@code ins}; every write reads {@code u} (directly or through
 * another CTE that does), so a save the fence refuses writes nothing; and the columns must make the statement fail
 * when the events were not all stored, never commit part of them: a division by zero (SQLSTATE {@code 22012}, which
 * undoes every CTE), which the store reports as a save refused because an event of its step is already stored.
 */
public interface EventsClause {

    /** CTE definitions, each starting with {@code ", "}. */
    String ctes();

    /** Expressions added to the final select list, each starting with {@code ", "}. */
    String columns();

    /** Binds the clause's parameters from {@code index} (those of {@link #ctes} first); returns the next free index. */
    int bind(PreparedStatement ps, int index) throws SQLException;

    /** The events as stored (e.g. with their sequence numbers), read from the row's columns from {@code column}. */
    List<Event> read(ResultSet rs, int column) throws SQLException;
}
