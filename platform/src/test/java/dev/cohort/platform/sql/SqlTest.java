package dev.cohort.platform.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.devstack.pg.LocalPostgres;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@link Sql#single}: one statement on an auto-commit connection (no {@code COMMIT} round trip), or in a transaction
 * when the pool hands out a connection without auto-commit; either way what it wrote is committed, and a failure
 * names what was being done. Real PostgreSQL.
 */
class SqlTest {
    private static LocalPostgres pg;
    private static PGSimpleDataSource ds;

    @BeforeAll
    static void start() throws Exception {
        pg = LocalPostgres.start(0);
        ds = new PGSimpleDataSource();
        ds.setURL(pg.jdbcUrl());
        ds.setUser(pg.username());
        ds.setPassword(pg.password());
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE single_t (id int PRIMARY KEY)");
        }
    }

    @AfterAll
    static void stop() {
        if (pg != null) {
            pg.close();
        }
    }

    private static int insert(Connection c, int id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO single_t VALUES (?) ON CONFLICT DO NOTHING")) {
            ps.setInt(1, id);
            return ps.executeUpdate();
        }
    }

    private static boolean stored(int id) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT 1 FROM single_t WHERE id = ?")) {
            ps.setInt(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    @Test
    void aStatementOnAnAutoCommitConnectionIsCommittedWithoutATransaction() throws SQLException {
        int inserted = Sql.single(ds, "insert 1", c -> {
            assertThat(c.getAutoCommit()).isTrue();
            return insert(c, 1);
        });
        assertThat(inserted).isEqualTo(1);
        assertThat(stored(1)).isTrue();
        int again = Sql.single(ds, "insert 1 again", c -> insert(c, 1));
        assertThat(again).isZero();
    }

    @Test
    void aConnectionWithoutAutoCommitGetsATransactionThatIsCommitted() throws SQLException {
        DataSource manual = new Delegating(ds) {
            @Override
            public Connection getConnection() throws SQLException {
                Connection c = ds.getConnection();
                c.setAutoCommit(false);
                return c;
            }
        };
        int inserted = Sql.single(manual, "insert 2", c -> insert(c, 2));
        assertThat(inserted).isEqualTo(1);
        assertThat(stored(2)).as("committed, seen from another connection").isTrue();
    }

    @Test
    void aFailureNamesWhatWasBeingDone() {
        assertThatThrownBy(() -> Sql.single(ds, "read the missing table", c -> {
            try (Statement s = c.createStatement()) {
                return s.executeQuery("SELECT * FROM no_such_table").next();
            }
        })).isInstanceOf(IllegalStateException.class).hasMessageStartingWith("cannot read the missing table: ");
    }

    /** A data source handing out another's connections (override {@code getConnection}). */
    private abstract static class Delegating implements DataSource {
        final DataSource ds;

        Delegating(DataSource ds) {
            this.ds = ds;
        }

        @Override
        public Connection getConnection(String u, String p) throws SQLException {
            return getConnection();
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {
        }

        @Override
        public void setLoginTimeout(int seconds) {
        }

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }

    @Test
    void bindSetsEachValueWithItsOwnTypeAndANullAsText() throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = Sql.bind(c.prepareStatement("SELECT ?::text, ?::boolean, ?::int, ?::bigint, "
                        + "?::text IS NULL, pg_typeof(?)::text"), "a", true, 7, 8L, null, 9L);
                ResultSet rs = ps.executeQuery()) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("a");
            assertThat(rs.getBoolean(2)).isTrue();
            assertThat(rs.getInt(3)).isEqualTo(7);
            assertThat(rs.getLong(4)).isEqualTo(8L);
            assertThat(rs.getBoolean(5)).isTrue();
            assertThat(rs.getString(6)).isEqualTo("bigint");
        }
    }
}
