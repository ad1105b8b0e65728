package dev.cohort.lead.store;

import dev.cohort.host.store.Sql;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** The lead's repositories' transaction helper: agent-host's {@code Sql.inTransaction}, under its old name. */
public final class Jdbc {
    private Jdbc() {
    }

    /** Work inside a transaction. */
    @FunctionalInterface
    public interface TxWork<T> {
        T run(Connection c) throws SQLException;
    }

    public static <T> T inTransaction(DataSource ds, String what, TxWork<T> work) {
        return Sql.inTransaction(ds, what, work::run);
    }
}
