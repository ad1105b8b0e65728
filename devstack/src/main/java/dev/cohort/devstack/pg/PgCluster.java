package dev.cohort.devstack.pg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.postgresql.PGConnection;

/**
 * One PostgreSQL cluster of devstack's own, what {@link LocalPostgres} and {@link RestartablePostgres} share: a data
 * directory made by {@code initdb} in a fresh temporary directory, and a server run on it by {@code pg_ctl}, listening
 * on 127.0.0.1 and on a Unix socket in that temporary directory.
 *
 * <p>Every connection needs a password, over TCP and over the socket alike: {@code initdb --auth=scram-sha-256} writes
 * {@code scram-sha-256} on every line of {@code pg_hba.conf} ({@code local} and {@code host}), so a process that can
 * reach the port (a team's sandbox given network access, another user of the machine) cannot log in without it.
 *
 * <p>The superuser {@value #SUPERUSER} gets a password drawn per cluster from {@link SecureRandom}. It reaches initdb in
 * a file of the cluster's directory that only the server's OS user can read ({@code 0600}), deleted as soon as initdb
 * returns, whether it succeeded or not: never on a command line (any local user reads those in {@code /proc}), never
 * in a log. It then lives only in this object, for the bootstrap ({@link #createOwnedDatabase}) and for whoever asks
 * this JVM for it; a restart on the same data directory needs no password ({@code pg_ctl -w} waits on the server's pid
 * file, not on a login).
 */
final class PgCluster {

    /** The bootstrap superuser initdb creates. */
    static final String SUPERUSER = "postgres";

    /** SQL states of a server that is not accepting connections yet: the only failures worth connecting again after. */
    private static final List<String> NOT_UP_YET = List.of("08001", "08004", "08006", "57P03");

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Binaries binaries;
    private final Path dir;
    private final Path data;
    private final int port;
    private final boolean root;
    private final String superuserPassword;

    private PgCluster(Binaries binaries, Path dir, int port, boolean root, String superuserPassword) {
        this.binaries = binaries;
        this.dir = dir;
        this.data = dir.resolve("data");
        this.port = port;
        this.root = root;
        this.superuserPassword = superuserPassword;
    }

    /** The binaries in use and how they run as root. */
    record Binaries(Path bin, String provider) {

        /** {@code cmd} as a user PostgreSQL accepts when this JVM runs as root (it refuses root itself). */
        List<String> asUser(boolean root, List<String> cmd) {
            if (!root) {
                return cmd;
            }
            if (provider.equals("debian")) {
                return LocalPostgres.asUser(true, cmd);
            }
            // no postgres OS user on a machine without Debian's package: zonky's way, root unmapped in a user namespace
            List<String> all = new ArrayList<>(List.of("unshare", "-U"));
            all.addAll(cmd);
            return all;
        }

        String tool(String name) {
            return bin.resolve(name).toString();
        }
    }

    /**
     * {@code PG_BIN} or Debian's binaries, else zonky's from Maven Central; {@code COHORT_DEVSTACK_PG=debian|zonky}
     * forces one.
     */
    static Binaries binaries() {
        String forced = LocalPostgres.setting("COHORT_DEVSTACK_PG", "cohort.devstack.pg").orElse("auto");
        Optional<Path> system = forced.equals("zonky") ? Optional.empty() : LocalPostgres.systemBinaries();
        if (system.isPresent()) {
            return new Binaries(system.get(), "debian");
        }
        if (forced.equals("debian")) {
            throw new IllegalStateException("COHORT_DEVSTACK_PG=debian but no PostgreSQL binaries found (set PG_BIN or apt-get install postgresql)");
        }
        return new Binaries(ZonkyBinaries.bin(), "zonky");
    }

    /** A fresh password: 32 bytes of {@link SecureRandom}, as 64 hex digits (no character any config or URL escapes). */
    static String newPassword() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /**
     * A new cluster in a fresh temporary directory named {@code prefix…}: initdb with a new superuser password and
     * {@code scram-sha-256} for every connection. Not started.
     */
    static PgCluster init(Binaries binaries, int port, String prefix, Duration timeout) {
        boolean root = "root".equals(System.getProperty("user.name"));
        Path dir;
        try {
            dir = Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        PgCluster c = new PgCluster(binaries, dir, port, root, newPassword());
        try {
            if (c.runsAsPostgresUser()) {
                LocalPostgres.run(List.of("chown", "-R", "postgres:postgres", dir.toString()), null, timeout);
            }
            c.initdb(timeout);
        } catch (RuntimeException e) {
            c.delete();
            throw e;
        }
        return c;
    }

    private void initdb(Duration timeout) {
        Path pwfile = dir.resolve("superuser.pw");
        withPasswordFile(pwfile, superuserPassword, runsAsPostgresUser(), () -> LocalPostgres.run(asUser(List.of(
                binaries.tool("initdb"), "-D", data.toString(), "-U", SUPERUSER, "--auth=scram-sha-256",
                "--pwfile=" + pwfile, "-E", "UTF8", "--locale=C", "--no-sync")), dir, timeout));
    }

    /**
     * Runs {@code action} while {@code file} holds {@code password}: created {@code 0600} (readable by its owner alone
     * from its first byte), owned by the {@code postgres} OS user when {@code forPostgresUser}, and deleted afterwards
     * whatever {@code action} did; a file that cannot be deleted fails the call.
     */
    static void withPasswordFile(Path file, String password, boolean forPostgresUser, Runnable action) {
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            try {
                Files.writeString(file, password + "\n", StandardCharsets.US_ASCII);
                if (forPostgresUser) {
                    UserPrincipalLookupService users = file.getFileSystem().getUserPrincipalLookupService();
                    PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class);
                    view.setOwner(users.lookupPrincipalByName("postgres"));
                    view.setGroup(users.lookupPrincipalByGroupName("postgres"));
                }
                action.run();
            } finally {
                Files.delete(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("password file " + file, e);
        }
    }

    /**
     * Starts the server ({@code pg_ctl -w}: returns once it accepts connections) on 127.0.0.1 and the socket directory,
     * with the given {@code -c} settings; the server's log is in the message of a failure.
     */
    void start(String settings, Duration timeout) {
        String opts = "-p " + port + " -h 127.0.0.1 -k " + dir + " " + settings;
        try {
            LocalPostgres.run(asUser(List.of(binaries.tool("pg_ctl"), "-D", data.toString(), "-l", serverLog().toString(),
                    "-w", "-t", Long.toString(timeout.toSeconds()), "-o", opts, "start")), dir, timeout.plusSeconds(30));
        } catch (RuntimeException e) {
            String log = "";
            try {
                log = Files.readString(serverLog());
            } catch (IOException ignored) {
                // no log
            }
            throw new IllegalStateException(e.getMessage() + "\n" + log, e);
        }
    }

    /** Stops the server at once ({@code -m immediate}: every connection is cut, as when the server crashes). */
    void stop(Duration timeout) {
        LocalPostgres.run(asUser(List.of(binaries.tool("pg_ctl"), "-D", data.toString(), "-m", "immediate", "-w", "stop")),
                dir, timeout);
    }

    /**
     * As the superuser: a login role {@code role} with {@code password}, no superuser and no other role attribute, and
     * {@code database} owned by it (so it may create schemas there, each service its own). The password reaches the
     * server as a SCRAM verifier computed here, never in clear, so not even a statement log could show it.
     */
    void createOwnedDatabase(String role, String password, String database, int attempts) {
        try (Connection c = connectAsSuperuser(attempts); Statement s = c.createStatement()) {
            s.execute("CREATE ROLE " + role + " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS");
            c.unwrap(PGConnection.class).alterUserPassword(role, password.toCharArray(), "scram-sha-256");
            s.execute("CREATE DATABASE " + database + " OWNER " + role);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create role and database " + database + " on port " + port, e);
        }
    }

    /** A superuser connection to the {@code postgres} database, tried again every 100 ms while the server is not up. */
    private Connection connectAsSuperuser(int attempts) throws SQLException {
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
        SQLException last = null;
        for (int i = 0; i < attempts; i++) {
            try {
                return DriverManager.getConnection(url, SUPERUSER, superuserPassword);
            } catch (SQLException e) {
                if (!NOT_UP_YET.contains(e.getSQLState())) {
                    throw e;
                }
                last = e;
                sleep(100);
            }
        }
        throw new IllegalStateException("PostgreSQL on port " + port + " does not accept connections", last);
    }

    String superuserPassword() {
        return superuserPassword;
    }

    int port() {
        return port;
    }

    /** The cluster's temporary directory: the data directory, the server log and the Unix socket are in it. */
    Path directory() {
        return dir;
    }

    Path dataDirectory() {
        return data;
    }

    Path serverLog() {
        return dir.resolve("server.log");
    }

    /** The server's Unix socket ({@code .s.PGSQL.<port>}). */
    Path socket() {
        return dir.resolve(".s.PGSQL." + port);
    }

    /** Deletes the cluster's directory (the server must be stopped), best effort. */
    void delete() {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // best effort
        }
    }

    /** Debian's binaries as root run as the {@code postgres} OS user, who must own the directory and what initdb reads. */
    private boolean runsAsPostgresUser() {
        return root && binaries.provider().equals("debian");
    }

    private List<String> asUser(List<String> cmd) {
        return binaries.asUser(root, cmd);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
