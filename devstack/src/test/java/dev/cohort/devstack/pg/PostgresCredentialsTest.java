package dev.cohort.devstack.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.devstack.OptionalProgram;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * devstack's PostgreSQL lets no one in without its password, over TCP on 127.0.0.1 and over its Unix socket, for the
 * application role and the superuser alike, on the system's binaries and on zonky's; the services' role is no
 * superuser; the passwords are fresh per cluster and written nowhere: not in the cluster's files (the initdb password
 * file is gone), not in the server's log, not in devstack's output.
 */
class PostgresCredentialsTest {

    /** AuthenticationOk and AuthenticationSASL in the protocol's Authentication message. */
    private static final int AUTH_OK = 0;
    private static final int AUTH_SASL = 10;

    @TempDir
    Path tmp;

    @AfterEach
    void unforce() {
        System.clearProperty("cohort.devstack.pg");
    }

    @ParameterizedTest(name = "{0} binaries, over {1}")
    @CsvSource({"debian, tcp", "debian, socket", "zonky, tcp", "zonky, socket"})
    void noLoginWithoutTheRightPasswordButTheGivenCredentialsWork(String provider, String transport) throws Exception {
        force(provider);
        try (LocalPostgres pg = LocalPostgres.start(0)) {
            assertThat(pg.provider()).isEqualTo(provider);
            Path socket = pg.cluster().socket();
            boolean tcp = transport.equals("tcp");
            SocketAddress address = tcp ? new InetSocketAddress("127.0.0.1", pg.port()) : UnixDomainSocketAddress.of(socket);
            for (String user : List.of(pg.username(), pg.superuser(), "nobody")) {
                // the server itself asks for SCRAM before anything else, instead of letting the session in
                assertThat(firstAuthenticationRequest(address, user)).as("%s over %s", user, transport).isEqualTo(AUTH_SASL);
                assertThatThrownBy(() -> connect(tcp, pg, user, null)).as("%s without a password", user)
                        .isInstanceOf(SQLException.class);
                assertThatThrownBy(() -> connect(tcp, pg, user, LocalPostgres.newPassword())).as("%s, wrong password", user)
                        .isInstanceOf(SQLException.class).extracting(e -> ((SQLException) e).getSQLState())
                        .isEqualTo("28P01"); // invalid_password
            }
            // each role's password is its own
            assertThatThrownBy(() -> connect(tcp, pg, pg.superuser(), pg.password())).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> connect(tcp, pg, pg.username(), pg.superuserPassword())).isInstanceOf(SQLException.class);

            try (Connection c = connect(tcp, pg, pg.username(), pg.password())) {
                assertThat(query(c, "SELECT current_user || ' ' || current_database()")).isEqualTo("cohort cohort");
                // the session came in the way under test (no client address: the Unix socket)
                assertThat(query(c, "SELECT coalesce(host(inet_client_addr()), 'unix socket')"))
                        .isEqualTo(tcp ? "127.0.0.1" : "unix socket");
            }
            try (Connection c = connect(tcp, pg, pg.superuser(), pg.superuserPassword())) {
                assertThat(query(c, "SELECT rolsuper::text FROM pg_roles WHERE rolname = current_user")).isEqualTo("true");
            }
        }
    }

    @Test
    void theServicesRoleIsNoSuperuserButOwnsTheDatabaseAndCreatesItsSchemaThere() throws Exception {
        try (LocalPostgres pg = LocalPostgres.start(0)) {
            assertThat(pg.username()).isEqualTo(LocalPostgres.USER).isNotEqualTo(pg.superuser());
            try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password());
                    Statement s = c.createStatement()) {
                assertThat(query(c, "SELECT concat_ws(',', rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls) "
                        + "FROM pg_roles WHERE rolname = current_user")).isEqualTo("f,f,f,f,f");
                assertThat(query(c, "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()"))
                        .isEqualTo(LocalPostgres.USER);
                // what Flyway does for each service: its own schema, its tables
                s.execute("CREATE SCHEMA svc");
                s.execute("CREATE TABLE svc.t (v TEXT)");
                s.execute("INSERT INTO svc.t VALUES ('mine')");
                assertThat(query(c, "SELECT v FROM svc.t")).isEqualTo("mine");
                // what only a superuser may: run a program as the server's OS user, change the server's settings
                assertThatThrownBy(() -> s.execute("COPY (SELECT 1) TO PROGRAM 'true'")).isInstanceOf(SQLException.class)
                        .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("42501"); // insufficient_privilege
                assertThatThrownBy(() -> s.execute("ALTER SYSTEM SET log_statement = 'all'")).isInstanceOf(SQLException.class)
                        .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("42501");
            }
        }
    }

    @Test
    void passwordsAreFreshPerClusterAndInNoFileLogOrOutputOfIt() throws Exception {
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        PrintStream out = System.out;
        PrintStream err = System.err;
        System.setOut(new PrintStream(new Tee(out, output), true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(new Tee(err, output), true, StandardCharsets.UTF_8));
        List<String> passwords = new ArrayList<>();
        try (LocalPostgres one = LocalPostgres.start(0); LocalPostgres two = LocalPostgres.start(0)) {
            for (LocalPostgres pg : List.of(one, two)) {
                passwords.add(pg.password());
                passwords.add(pg.superuserPassword());
                // failed logins are logged (the server's log is read below), their passwords are not
                assertThatThrownBy(() -> DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.superuserPassword()))
                        .isInstanceOf(SQLException.class);
            }
            assertThat(passwords).allMatch(p -> p.matches("[0-9a-f]{64}"), "64 hex digits (256 random bits)")
                    .doesNotHaveDuplicates();
            for (LocalPostgres pg : List.of(one, two)) {
                PgCluster cluster = pg.cluster();
                assertThat(cluster.directory().resolve("superuser.pw")).doesNotExist();
                String log = Files.readString(cluster.serverLog());
                assertThat(log).contains("password authentication failed for user \"" + LocalPostgres.USER + "\"");
                // every file of the cluster (configuration, data, WAL, log): the server keeps SCRAM verifiers only
                List<Path> files;
                try (Stream<Path> all = Files.walk(cluster.directory())) {
                    files = all.filter(Files::isRegularFile).toList();
                }
                assertThat(files).contains(cluster.dataDirectory().resolve("pg_hba.conf"), cluster.serverLog());
                for (Path f : files) {
                    String bytes = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
                    for (String p : passwords) {
                        assertThat(bytes.contains(p)).as("a password in %s", f).isFalse();
                    }
                }
                String hba = Files.readString(cluster.dataDirectory().resolve("pg_hba.conf"));
                assertThat(hba.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).toList())
                        .isNotEmpty().allMatch(l -> l.strip().endsWith("scram-sha-256"), "scram-sha-256 on every line");
            }
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        String printed = output.toString(StandardCharsets.UTF_8);
        for (String p : passwords) {
            assertThat(printed.contains(p)).as("a password in devstack's output").isFalse();
        }
    }

    @Test
    void thePasswordFileIsTheOwnersAloneWhileInitdbReadsItAndGoneAfterwardsEvenOnAFailure() throws Exception {
        Path file = tmp.resolve("superuser.pw");
        PgCluster.withPasswordFile(file, "s3cret", false, () -> {
            try {
                assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
                assertThat(Files.readString(file)).isEqualTo("s3cret\n");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        assertThat(file).doesNotExist();

        assertThatThrownBy(() -> PgCluster.withPasswordFile(file, "s3cret", false, () -> {
            throw new IllegalStateException("initdb failed");
        })).hasMessage("initdb failed");
        assertThat(file).doesNotExist();

        // a file (or a link) already there is never written to: someone else may read it
        Files.writeString(file, "planted");
        assertThatThrownBy(() -> PgCluster.withPasswordFile(file, "s3cret", false, () -> { }))
                .isInstanceOf(UncheckedIOException.class);
        assertThat(Files.readString(file)).isEqualTo("planted");
    }

    @Test
    void aCallerMayChooseTheApplicationPasswordButNotAWeakOne() throws Exception {
        assertThatThrownBy(() -> LocalPostgres.start(0, "postgres")).isInstanceOf(IllegalArgumentException.class);
        String chosen = LocalPostgres.newPassword();
        try (LocalPostgres pg = LocalPostgres.start(0, chosen)) {
            assertThat(pg.password()).isEqualTo(chosen);
            try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.username(), chosen)) {
                assertThat(query(c, "SELECT current_user")).isEqualTo(LocalPostgres.USER);
            }
            assertThatThrownBy(() -> DriverManager.getConnection(pg.jdbcUrl(), pg.username(), "postgres"))
                    .isInstanceOf(SQLException.class);
        }
    }

    // ---------------------------------------------------------------------------------------------- helpers

    static void force(String provider) {
        if (provider.equals("debian")) {
            OptionalProgram.POSTGRESQL.assume(LocalPostgres.systemBinaries().isPresent() ? Optional.empty()
                    : Optional.of("no PG_BIN and no /usr/lib/postgresql/N/bin/initdb"));
        }
        System.setProperty("cohort.devstack.pg", provider);
    }

    /** pgjdbc to the {@code cohort} database over TCP or the Unix socket; no password property when {@code password} is null. */
    private static Connection connect(boolean tcp, LocalPostgres pg, String user, String password) throws SQLException {
        if (tcp) {
            Properties p = new Properties();
            p.setProperty("user", user);
            if (password != null) {
                p.setProperty("password", password);
            }
            return DriverManager.getConnection(pg.jdbcUrl(), p);
        }
        return DriverManager.getConnection(pg.jdbcUrl(), UnixSocketFactory.properties(pg.cluster().socket(), user, password));
    }

    /**
     * The server's answer to a StartupMessage for {@code user} on database {@code postgres}: the code of its first
     * Authentication message (0 = in without any password), or -1 for an ErrorResponse.
     */
    static int firstAuthenticationRequest(SocketAddress address, String user) throws IOException {
        try (SocketChannel ch = SocketChannel.open(address)) {
            byte[] params = ("user\0" + user + "\0database\0postgres\0\0").getBytes(StandardCharsets.UTF_8);
            ByteBuffer startup = ByteBuffer.allocate(8 + params.length);
            startup.putInt(8 + params.length).putInt(3 << 16).put(params).flip(); // protocol 3.0
            while (startup.hasRemaining()) {
                ch.write(startup);
            }
            ByteBuffer head = read(ch, 5);
            byte type = head.get();
            int length = head.getInt();
            ByteBuffer body = read(ch, length - 4);
            if (type == 'E') {
                return -1;
            }
            assertThat((char) type).as("an Authentication message").isEqualTo('R');
            int code = body.getInt();
            if (code == AUTH_SASL) {
                String mechanisms = StandardCharsets.US_ASCII.decode(body).toString();
                assertThat(mechanisms).contains("SCRAM-SHA-256");
            }
            assertThat(code).isNotEqualTo(AUTH_OK);
            return code;
        }
    }

    private static ByteBuffer read(SocketChannel ch, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new IOException("closed after " + b.position() + " of " + n + " bytes");
            }
        }
        return b.flip();
    }

    private static String query(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).isTrue();
            return rs.getString(1);
        }
    }

    /** Writes to the original stream and to a copy. */
    private static final class Tee extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        Tee(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int c) throws IOException {
            a.write(c);
            b.write(c);
        }

        @Override
        public void write(byte[] buf, int off, int len) throws IOException {
            a.write(buf, off, len);
            b.write(buf, off, len);
        }

        @Override
        public void flush() throws IOException {
            a.flush();
            b.flush();
        }
    }
}
