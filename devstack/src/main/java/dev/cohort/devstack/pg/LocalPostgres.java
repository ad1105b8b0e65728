package dev.cohort.devstack.pg;

import dev.cohort.devstack.Ports;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
 * from Maven Central with the build. Provider can be forced with {@code COHORT_DEVSTACK_PG=debian|zonky}.
 * PostgreSQL refuses to run as root: as root, Debian binaries run as the {@code postgres} OS user through
 * {@code runuser}, and zonky wraps them in a user namespace. The server listens on 127.0.0.1 only, with
 * durability off (fsync, synchronous commit) because its data is throw-away. One database, {@code cohort}.
 */
public final class LocalPostgres implements AutoCloseable {

    /** The database every service shares (one schema per service). */
    public static final String DATABASE = "cohort";
    public static final String USER = "postgres";

    private final int port;
    private final String provider;
    private final Runnable stopper;
    private final long startupMillis;
    private volatile boolean closed;

    private LocalPostgres(int port, String provider, Runnable stopper, long startupMillis) {
        this.port = port;
        this.provider = provider;
        this.stopper = stopper;
        this.startupMillis = startupMillis;
    }

    /** Starts a server on the given port (0 = free) and creates the {@value #DATABASE} database. */
    public static LocalPostgres start(int port) {
        long t0 = System.nanoTime();
        int p = Ports.orFree(port);
        String forced = setting("COHORT_DEVSTACK_PG", "cohort.devstack.pg").orElse("auto");
        Optional<Path> bin = forced.equals("zonky") ? Optional.empty() : systemBinaries();
        LocalPostgres pg;
        if (bin.isPresent()) {
            pg = startSystem(bin.get(), p, t0);
        } else if (forced.equals("debian")) {
            throw new IllegalStateException("COHORT_DEVSTACK_PG=debian but no PostgreSQL binaries found (set PG_BIN or apt-get install postgresql)");
        } else {
            pg = startZonky(p, t0);
        }
        try {
            pg.createDatabase();
        } catch (RuntimeException e) {
            pg.close();
            throw e;
        }
        return pg;
    }

    /** {@code jdbc:postgresql://127.0.0.1:<port>/cohort}. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE;
    }

    public String username() {
        return USER;
    }

    /** Authentication is {@code trust} on loopback; any password works. */
    public String password() {
        return "postgres";
    }

    public int port() {
        return port;
    }

    /** {@code debian} or {@code zonky}: which binaries run. */
    public String provider() {
        return provider;
    }

    public long startupMillis() {
        return startupMillis;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            stopper.run();
        }
    }

    private void createDatabase() {
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
        SQLException last = null;
        for (int i = 0; i < 100; i++) {
            try (Connection c = DriverManager.getConnection(url, USER, password()); Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + DATABASE + "'")) {
                    if (!rs.next()) {
                        s.execute("CREATE DATABASE " + DATABASE);
                    }
                }
                return;
            } catch (SQLException e) {
                last = e;
                sleep(100);
            }
        }
        throw new IllegalStateException("PostgreSQL on port " + port + " does not accept connections", last);
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

    private static LocalPostgres startSystem(Path bin, int port, long t0) {
        boolean root = "root".equals(System.getProperty("user.name"));
        Path dir;
        try {
            dir = Files.createTempDirectory("cohort-pg-");
            if (root) {
                run(List.of("chown", "-R", "postgres:postgres", dir.toString()), null);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path data = dir.resolve("data");
        Path log = dir.resolve("server.log");
        run(asUser(root, List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", USER, "-A", "trust",
                "-E", "UTF8", "--locale=C", "--no-sync")), dir);
        String opts = "-p " + port + " -h 127.0.0.1 -k " + dir
                // throw-away data: durability off makes tests faster and changes no SQL semantics
                + " -F -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200";
        Runnable stop = () -> {
            try {
                run(asUser(root, List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "immediate", "-w", "stop")), dir);
            } catch (RuntimeException ignored) {
                // already gone
            }
            deleteQuietly(dir);
        };
        try {
            run(asUser(root, List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", log.toString(), "-w", "-t", "60",
                    "-o", opts, "start")), dir);
        } catch (RuntimeException e) {
            String serverLog = "";
            try {
                serverLog = Files.readString(log);
            } catch (IOException ignored) {
                // no log
            }
            stop.run();
            throw new IllegalStateException(e.getMessage() + "\n" + serverLog, e);
        }
        Thread hook = new Thread(stop, "cohort-pg-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        Runnable stopper = () -> {
            stop.run();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // JVM already shutting down
            }
        };
        return new LocalPostgres(port, "debian", stopper, (System.nanoTime() - t0) / 1_000_000);
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

    private static void run(List<String> cmd, Path dir) {
        run(cmd, dir, java.time.Duration.ofSeconds(120));
    }

    /** Runs a PostgreSQL tool, its output kept for the error; fails on a non-zero exit or after {@code timeout}. */
    static void run(List<String> cmd, Path dir, java.time.Duration timeout) {
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

    // ---------------------------------------------------------------------------------------------- zonky binaries

    private static LocalPostgres startZonky(int port, long t0) {
        try {
            EmbeddedPostgres pg = EmbeddedPostgres.builder()
                    .setPort(port)
                    .setServerConfig("listen_addresses", "127.0.0.1")
                    .setServerConfig("fsync", "off")
                    .setServerConfig("synchronous_commit", "off")
                    .setServerConfig("full_page_writes", "off")
                    .setServerConfig("max_connections", "200")
                    .start();
            Runnable stop = () -> {
                try {
                    pg.close();
                } catch (IOException ignored) {
                    // already gone
                }
            };
            return new LocalPostgres(port, "zonky", stop, (System.nanoTime() - t0) / 1_000_000);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start zonky embedded PostgreSQL", e);
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

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // best effort
        }
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
