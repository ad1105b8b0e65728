package dev.cohort.devstack.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.devstack.OptionalProgram;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A server stopped as in a crash and started again keeps its committed rows and its address, on the system's binaries
 * and on zonky's from Maven Central (all a machine with only a JDK has).
 */
class RestartablePostgresTest {

    @AfterEach
    void unforce() {
        System.clearProperty("cohort.devstack.pg");
    }

    @ParameterizedTest
    @ValueSource(strings = {"debian", "zonky"})
    void aCommittedRowSurvivesAnImmediateStopAndTheRestartOnTheSamePort(String provider) throws Exception {
        if (provider.equals("debian")) {
            OptionalProgram.POSTGRESQL.assume(LocalPostgres.systemBinaries().isPresent() ? Optional.empty()
                    : Optional.of("no PG_BIN and no /usr/lib/postgresql/N/bin/initdb"));
        }
        System.setProperty("cohort.devstack.pg", provider);
        try (RestartablePostgres pg = RestartablePostgres.start()) {
            assertThat(pg.provider()).isEqualTo(provider);
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
