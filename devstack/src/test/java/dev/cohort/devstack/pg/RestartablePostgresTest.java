package dev.cohort.devstack.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.devstack.OptionalProgram;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
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
 * A server stopped as in a crash and started again keeps its committed rows, its address and its credentials, on the
 * system's binaries and on zonky's from Maven Central (all a machine with only a JDK has).
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

    @ParameterizedTest
    @ValueSource(strings = {"debian", "zonky"})
    void everyLoginNeedsThePasswordBeforeAndAfterARestartAndTheSameCredentialsWork(String provider) throws Exception {
        PostgresCredentialsTest.force(provider);
        try (RestartablePostgres pg = RestartablePostgres.start()) {
            String password = pg.password();
            String superuserPassword = pg.superuserPassword();
            assertThat(pg.username()).isEqualTo(LocalPostgres.USER);
            assertThat(password).matches("[0-9a-f]{64}").isNotEqualTo(superuserPassword);
            for (int round = 0; round < 2; round++) {
                for (String user : new String[] {pg.username(), pg.superuser()}) {
                    assertThat(PostgresCredentialsTest.firstAuthenticationRequest(
                            new InetSocketAddress("127.0.0.1", pg.port()), user)).isEqualTo(10); // SASL, not in
                    assertThat(PostgresCredentialsTest.firstAuthenticationRequest(
                            UnixDomainSocketAddress.of(pg.cluster().socket()), user)).isEqualTo(10);
                    assertThatThrownBy(() -> DriverManager.getConnection(pg.jdbcUrl() + "?user=" + user))
                            .isInstanceOf(SQLException.class);
                    assertThatThrownBy(() -> DriverManager.getConnection(pg.jdbcUrl(), user, LocalPostgres.newPassword()))
                            .isInstanceOf(SQLException.class);
                }
                try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password());
                        Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT current_user")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo(LocalPostgres.USER);
                }
                DriverManager.getConnection(pg.jdbcUrl(), pg.superuser(), pg.superuserPassword()).close();
                pg.stop();
                pg.restart();
                // the same credentials, kept in memory across the restart
                assertThat(pg.password()).isEqualTo(password);
                assertThat(pg.superuserPassword()).isEqualTo(superuserPassword);
            }
        }
    }
}
