package dev.cohort.devstack.pg;

import dev.cohort.devstack.Ports;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server for tests and {@code cohort up}, with no Docker and no system install required.
 *
 * <p>Binaries, in order: {@code PG_BIN} (env or system property {@code cohort.devstack.pg-bin}); the newest
 * Debian install under {@code /usr/lib/postgresql/N/bin}; otherwise zonky's PostgreSQL binaries, which come
 * from Maven Central with the build ({@link ZonkyBinaries}). Provider can be forced with
 * {@code COHORT_DEVSTACK_PG=debian|zonky}. PostgreSQL refuses to run as root: as root, Debian binaries run as the
 * {@code postgres} OS user through {@code runuser}, and zonky's in a user namespace ({@code unshare -U}). The server
 * listens on 127.0.0.1 only, with durability off (fsync, synchronous commit) because its data is throw-away. One
 * database, {@code cohort}.
 *
 * <p>Every connection needs a password ({@link PgCluster}: {@code scram-sha-256} over TCP and the Unix socket). Two
 * roles: the superuser {@value #SUPERUSER}, with a password of its own that stays in this JVM (for the bootstrap, and
 * for a test or benchmark that changes server settings), and the application role {@value #USER}, which is no
 * superuser and owns the {@value #DATABASE} database (so each service creates and migrates its own schema there, as
 * the application user of a production database does). The services get the application role:
 * {@link #username()}, {@link #password()}.
 */
public final class LocalPostgres implements AutoCloseable {

    /** The database every service shares (one schema per service). */
    public static final String DATABASE = "cohort";
    /** The application role: no superuser, owner of {@value #DATABASE}. */
    public static final String USER = "cohort";
    /** The cluster's bootstrap superuser. */
    public static final String SUPERUSER = PgCluster.SUPERUSER;

    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    private final PgCluster cluster;
    private final String password;
    private final String provider;
    private final Thread hook;
    private volatile long startupMillis;
    private boolean closed;

    private LocalPostgres(PgCluster cluster, String password, String provider) {
        this.cluster = cluster;
        this.password = password;
        this.provider = provider;
        this.hook = new Thread(this::stopAndDelete, "cohort-pg-stop");
    }

    /**
     * Starts a server on the given port (0 = free) and creates the {@value #DATABASE} database, owned by the
     * application role {@value #USER} with a fresh password ({@link #password()}).
     */
    public static LocalPostgres start(int port) {
        return start(port, newPassword());
    }

    /**
     * As {@link #start(int)}, with the application role's password chosen by the caller (from {@link #newPassword()}):
     * for a process given its database credentials before the server exists.
     *
     * @param password at least 32 characters
     */
    public static LocalPostgres start(int port, String password) {
        if (password == null || password.length() < 32) {
            throw new IllegalArgumentException("the application role's password needs 32 characters or more: use LocalPostgres.newPassword()");
        }
        long t0 = System.nanoTime();
        PgCluster.Binaries binaries = PgCluster.binaries();
        PgCluster cluster = PgCluster.init(binaries, Ports.orFree(port), "cohort-pg-", TIMEOUT);
        LocalPostgres pg = new LocalPostgres(cluster, password, binaries.provider());
        Runtime.getRuntime().addShutdownHook(pg.hook);
        try {
            // throw-away data: durability off makes tests faster and changes no SQL semantics
            cluster.start("-F -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200", TIMEOUT);
            cluster.createOwnedDatabase(USER, password, DATABASE, 100);
        } catch (RuntimeException e) {
            pg.close();
            throw e;
        }
        pg.startupMillis = (System.nanoTime() - t0) / 1_000_000;
        return pg;
    }

    /** A fresh password (32 bytes of {@code SecureRandom}, as 64 hex digits). */
    public static String newPassword() {
        return PgCluster.newPassword();
    }

    /** {@code jdbc:postgresql://127.0.0.1:<port>/cohort}. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + cluster.port() + "/" + DATABASE;
    }

    /** The application role {@value #USER}: what the services log in as. */
    public String username() {
        return USER;
    }

    /** The application role's password. */
    public String password() {
        return password;
    }

    /** The superuser {@value #SUPERUSER}, for what the application role may not do (server settings); never a service's. */
    public String superuser() {
        return SUPERUSER;
    }

    /** The superuser's password, drawn for this cluster. */
    public String superuserPassword() {
        return cluster.superuserPassword();
    }

    public int port() {
        return cluster.port();
    }

    /** {@code debian} or {@code zonky}: which binaries run. */
    public String provider() {
        return provider;
    }

    public long startupMillis() {
        return startupMillis;
    }

    /** The cluster: its directory, server log and socket (tests). */
    PgCluster cluster() {
        return cluster;
    }

    @Override
    public void close() {
        stopAndDelete();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException ignored) {
            // the JVM is shutting down
        }
    }

    private synchronized void stopAndDelete() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            cluster.stop(TIMEOUT);
        } catch (RuntimeException ignored) {
            // already gone
        }
        cluster.delete();
    }

    // ---------------------------------------------------------------------------------------------- system binaries

    /** {@code PG_BIN} (an error when it has no initdb), else the newest Debian install; empty when neither. */
    static Optional<Path> systemBinaries() {
        Optional<String> explicit = setting("PG_BIN", "cohort.devstack.pg-bin");
        if (explicit.isPresent()) {
            Path p = Path.of(explicit.get());
            if (!Files.isExecutable(p.resolve("initdb"))) {
                throw new IllegalStateException("PG_BIN=" + p + " has no executable initdb");
            }
            return Optional.of(p);
        }
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return Optional.empty();
        }
        try (Stream<Path> s = Files.list(root)) {
            return s.filter(d -> Files.isExecutable(d.resolve("bin/initdb")) && Files.isExecutable(d.resolve("bin/pg_ctl")))
                    .max(Comparator.comparingInt(d -> parseIntOr(d.getFileName().toString(), 0)))
                    .map(d -> d.resolve("bin"));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** {@code cmd} as the {@code postgres} user when this JVM runs as root (PostgreSQL refuses to run as root). */
    static List<String> asUser(boolean root, List<String> cmd) {
        if (!root) {
            return cmd;
        }
        List<String> all = new ArrayList<>(List.of("runuser", "-u", "postgres", "--"));
        all.addAll(cmd);
        return all;
    }

    /** Runs a PostgreSQL tool, its output kept for the error; fails on a non-zero exit or after {@code timeout}. */
    static void run(List<String> cmd, Path dir, Duration timeout) {
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            if (dir != null) {
                pb.directory(dir.toFile());
            }
            File out = File.createTempFile("cohort-pg-cmd", ".log");
            try {
                pb.redirectOutput(out);
                Process p = pb.start();
                if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IllegalStateException("timed out: " + String.join(" ", cmd));
                }
                if (p.exitValue() != 0) {
                    String output = Files.readString(out.toPath(), StandardCharsets.UTF_8);
                    throw new IllegalStateException("failed (rc " + p.exitValue() + "): " + String.join(" ", cmd) + "\n" + output);
                }
            } finally {
                Files.deleteIfExists(out.toPath());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + cmd.get(0), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    // ---------------------------------------------------------------------------------------------- helpers

    static Optional<String> setting(String env, String property) {
        String v = System.getProperty(property);
        if (v == null || v.isBlank()) {
            v = System.getenv(env);
        }
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.strip());
    }

    private static int parseIntOr(String s, int dflt) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return dflt;
        }
    }
}
