package dev.cohort.lead.store;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Work that must commit with a state change or not at all, given the change's outcome: it runs on the change's
 * connection, inside its transaction, before the commit; throwing rolls the change back. Used to record a tool call's
 * result with its effect ({@link ToolEffectRepository}).
 */
@FunctionalInterface
public interface InTransaction<T> {

    void run(Connection c, T outcome) throws SQLException;

    /** Nothing more to do. */
    static <T> InTransaction<T> none() {
        return (c, outcome) -> {
        };
    }
}
