package dev.cohort.lead.persistence;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Small JDBC helpers: one transaction, rolled back on any failure. */
public final class Jdbc {
    private Jdbc() {
    }

    /** Work inside a transaction. */
    @FunctionalInterface
    public interface TxWork<T> {
        T run(Connection c) throws SQLException;
    }

    public static <T> T inTransaction(DataSource ds, String what, TxWork<T> work) {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot " + what + ": " + e.getMessage(), e);
        }
    }
}
