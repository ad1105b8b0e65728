package dev.cohort.devstack.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Issue 17: a server stopped as in a crash and started again keeps its committed rows and its address. */
class RestartablePostgresTest {

    @Test
    void aCommittedRowSurvivesAnImmediateStopAndTheRestartOnTheSamePort() throws Exception {
        Assumptions.assumeTrue(RestartablePostgres.available(), "needs system PostgreSQL binaries (PG_BIN or Debian's)");
        try (RestartablePostgres pg = RestartablePostgres.start()) {
            String url = pg.jdbcUrl();
            try (Connection c = DriverManager.getConnection(url, pg.username(), pg.password()); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (v TEXT)");
                s.execute("INSERT INTO t VALUES ('kept')");
            }
            Connection open = DriverManager.getConnection(url, pg.username(), pg.password());
            pg.stop();
            assertThat(pg.isRunning()).isFalse();
            // the connection held across the stop is cut, as in a crash
            assertThatThrownBy(() -> open.createStatement().executeQuery("SELECT 1")).isInstanceOf(SQLException.class);
            open.close();

            pg.restart();

            assertThat(pg.jdbcUrl()).isEqualTo(url);
            try (Connection c = DriverManager.getConnection(url, pg.username(), pg.password()); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT v FROM t")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("kept");
            }
        }
    }
}
