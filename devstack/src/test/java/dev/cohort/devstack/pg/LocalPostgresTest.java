package dev.cohort.devstack.pg;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** A real PostgreSQL without Docker: a row round trip, for the system binaries and for zonky's. */
class LocalPostgresTest {

    @Test
    void aRowRoundTripsThroughTheServerOnLoopback() throws Exception {
        try (LocalPostgres pg = LocalPostgres.start(0)) {
            System.out.println("[local-postgres] " + pg.provider() + " up on " + pg.jdbcUrl() + " in " + pg.startupMillis() + " ms");
            assertThat(pg.jdbcUrl()).startsWith("jdbc:postgresql://127.0.0.1:").endsWith("/cohort");
            roundTrip(pg);
        }
    }

    @Test
    void zonkyBinariesFromMavenCentralWorkToo() throws Exception {
        System.setProperty("cohort.devstack.pg", "zonky");
        try (LocalPostgres pg = LocalPostgres.start(0)) {
            assertThat(pg.provider()).isEqualTo("zonky");
            roundTrip(pg);
        } finally {
            System.clearProperty("cohort.devstack.pg");
        }
    }

    @Test
    void stoppingReleasesThePort() throws Exception {
        int port;
        try (LocalPostgres pg = LocalPostgres.start(0)) {
            port = pg.port();
        }
        try (var s = new ServerSocket(port, 0, InetAddress.getLoopbackAddress())) {
            assertThat(s.getLocalPort()).isEqualTo(port);
        }
    }

    private static void roundTrip(LocalPostgres pg) throws Exception {
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password());
                Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS probe");
            s.execute("CREATE TABLE probe.items (id SERIAL PRIMARY KEY, body JSONB NOT NULL)");
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO probe.items (body) VALUES (?::jsonb) RETURNING id")) {
                ps.setString(1, "{\"text\":\"héllo\"}");
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    int id = rs.getInt(1);
                    try (ResultSet back = s.executeQuery("SELECT body->>'text' FROM probe.items WHERE id = " + id)) {
                        back.next();
                        assertThat(back.getString(1)).isEqualTo("héllo");
                    }
                }
            }
        }
    }
}
