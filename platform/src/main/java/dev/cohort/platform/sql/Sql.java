package dev.cohort.platform.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/** The JDBC helpers the shared stores have in common: a checked schema name and one transaction, rolled back on failure. */
public final class Sql {
    private static final Pattern SCHEMA = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    private Sql() {
    }

    /** Work inside a transaction. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /**
     * {@code schema} when it is a plain lower-case SQL identifier (it is put into statements as text, so nothing else
     * is accepted); {@code what} names the store in the error.
     */
    public static String schema(String schema, String what) {
        if (schema == null || !SCHEMA.matcher(schema).matches()) {
            throw new IllegalArgumentException(what + " schema must be a lower-case SQL identifier ([a-z_][a-z0-9_]*): "
                    + "not a schema name, not " + (schema == null ? "null" : "'" + schema + "'"));
        }
        return schema;
    }

    /** Runs {@code work} in one transaction; any failure rolls it back and surfaces as an unchecked error naming {@code what}. */
    public static <T> T inTransaction(DataSource ds, String what, Work<T> work) {
        try (Connection c = ds.getConnection()) {
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                T out = work.run(c);
                c.commit();
                return out;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(auto);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot " + what + ": " + e.getMessage(), e);
        }
    }

    /**
     * Runs {@code work} — one statement, atomic by itself — on a connection in auto-commit mode: one round trip to
     * PostgreSQL instead of the statement plus a {@code COMMIT} of {@link #inTransaction} (e.g. the teammate
     * host's reads and inbox insert on the way from a message to the model request). A connection the pool hands out
     * without auto-commit gets a transaction, as before.
     */
    public static <T> T single(DataSource ds, String what, Work<T> work) {
        try (Connection c = ds.getConnection()) {
            if (!c.getAutoCommit()) {
                return inTransaction(c, work);
            }
            return work.run(c);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot " + what + ": " + e.getMessage(), e);
        }
    }

    private static <T> T inTransaction(Connection c, Work<T> work) throws SQLException {
        try {
            T out = work.run(c);
            c.commit();
            return out;
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        }
    }

    /**
     * Sets {@code values} as the statement's parameters 1, 2, …: a {@code String} (or {@code null}, as a text null) with
     * {@code setString}, a {@code Boolean}, {@code Integer} or {@code Long} with its own setter, anything else with
     * {@code setObject}. A null meant for a column of another type needs its own {@code setNull}.
     */
    public static PreparedStatement bind(PreparedStatement ps, Object... values) throws SQLException {
        for (int i = 0; i < values.length; i++) {
            int at = i + 1;
            switch (values[i]) {
                case null -> ps.setNull(at, Types.VARCHAR);
                case String v -> ps.setString(at, v);
                case Boolean v -> ps.setBoolean(at, v);
                case Integer v -> ps.setInt(at, v);
                case Long v -> ps.setLong(at, v);
                default -> ps.setObject(at, values[i]);
            }
        }
        return ps;
    }
}
