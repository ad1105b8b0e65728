package dev.cohort.devstack.pg;

import dev.cohort.devstack.Ports;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL server that can be stopped (as a crash: {@code pg_ctl -m immediate}) and started again on the same
 * data directory and port: the "database down, database back" fault of the reliability suite (issue 17).
 * {@link LocalPostgres} itself is unchanged.
 *
 * <p>Needs system binaries ({@code PG_BIN} or Debian's {@code /usr/lib/postgresql/N/bin}): zonky's embedded server
 * cannot be restarted on its data directory. {@link #available()} says whether they are there. As root the binaries
 * run as the {@code postgres} OS user through {@code runuser}, like {@link LocalPostgres}. Same settings as
 * {@link LocalPostgres} (loopback, fsync off) except {@code synchronous_commit}, which stays on: an immediate stop is
 * a server crash, not a machine crash, so every committed row must survive it (in the OS page cache, replayed from
 * the WAL), as on a real server.
 */
public final class RestartablePostgres implements AutoCloseable {

    private final Path bin;
    private final Path dir;
    private final Path data;
    private final int port;
    private final boolean root;
    private final Thread hook;
    private boolean running;
    private boolean closed;

    private RestartablePostgres(Path bin, Path dir, int port, boolean root) {
        this.bin = bin;
        this.dir = dir;
        this.data = dir.resolve("data");
        this.port = port;
        this.root = root;
        this.hook = new Thread(this::stopQuietly, "cohort-pg-r-stop");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Whether system PostgreSQL binaries are there (this class cannot run without them). */
    public static boolean available() {
        return binaries().isPresent();
    }

    /** initdb in a temp directory, starts the server on a free loopback port, creates the {@code cohort} database. */
    public static RestartablePostgres start() {
        Path bin = binaries().orElseThrow(() -> new IllegalStateException(
                "RestartablePostgres needs system PostgreSQL binaries (PG_BIN or apt-get install postgresql)"));
        boolean root = "root".equals(System.getProperty("user.name"));
        Path dir;
        try {
            dir = Files.createTempDirectory("cohort-pg-r-");
            if (root) {
                run(List.of("chown", "-R", "postgres:postgres", dir.toString()), null);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        RestartablePostgres pg = new RestartablePostgres(bin, dir, Ports.free(), root);
        try {
            run(pg.asUser(List.of(bin.resolve("initdb").toString(), "-D", pg.data.toString(), "-U", LocalPostgres.USER, "-A",
                    "trust", "-E", "UTF8", "--locale=C", "--no-sync")), dir);
            pg.restart();
            pg.createDatabase();
        } catch (RuntimeException e) {
            pg.close();
            throw e;
        }
        return pg;
    }

    /** {@code jdbc:postgresql://127.0.0.1:<port>/cohort}; the same before and after a restart. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + LocalPostgres.DATABASE;
    }

    public String username() {
        return LocalPostgres.USER;
    }

    public String password() {
        return "postgres";
    }

    public int port() {
        return port;
    }

    public synchronized boolean isRunning() {
        return running;
    }

    /** Stops the server at once ({@code -m immediate}: every connection is cut, as when the server crashes). */
    public synchronized void stop() {
        if (running) {
            running = false;
            run(asUser(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "immediate", "-w", "stop")), dir);
        }
    }

    /** Starts the server on the same data directory and port and waits (up to 2 min) until it accepts connections. */
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        if (running) {
            return;
        }
        String opts = "-p " + port + " -h 127.0.0.1 -k " + dir
                // fsync off (the OS page cache survives a server crash), but synchronous_commit ON: with it off a commit
                // returns before its WAL leaves the server's memory, and an immediate stop loses the last ~0.6 s of
                // committed transactions, which a real server (or LocalPostgres' throw-away data) never has to face
                + " -F -c fsync=off -c synchronous_commit=on -c full_page_writes=off -c max_connections=200";
        run(asUser(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", dir.resolve("server.log").toString(),
                "-w", "-t", "120", "-o", opts, "start")), dir);
        running = true;
    }

    private void createDatabase() {
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
        SQLException last = null;
        for (int i = 0; i < 600; i++) {
            try (Connection c = DriverManager.getConnection(url, LocalPostgres.USER, password()); Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE " + LocalPostgres.DATABASE);
                return;
            } catch (SQLException e) {
                last = e;
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", ie);
                }
            }
        }
        throw new IllegalStateException("PostgreSQL on port " + port + " does not accept connections", last);
    }

    private void stopQuietly() {
        try {
            stop();
        } catch (RuntimeException ignored) {
            // already gone
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        stopQuietly();
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // best effort
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException ignored) {
            // shutting down
        }
    }

    private static Optional<Path> binaries() {
        Optional<String> explicit = LocalPostgres.setting("PG_BIN", "cohort.devstack.pg-bin");
        if (explicit.isPresent()) {
            Path p = Path.of(explicit.get());
            return Files.isExecutable(p.resolve("initdb")) ? Optional.of(p) : Optional.empty();
        }
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return Optional.empty();
        }
        try (Stream<Path> s = Files.list(root)) {
            return s.filter(d -> Files.isExecutable(d.resolve("bin/initdb")) && Files.isExecutable(d.resolve("bin/pg_ctl")))
                    .max(Comparator.comparingInt(d -> {
                        try {
                            return Integer.parseInt(d.getFileName().toString());
                        } catch (NumberFormatException e) {
                            return 0;
                        }
                    }))
                    .map(d -> d.resolve("bin"));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private List<String> asUser(List<String> cmd) {
        return LocalPostgres.asUser(root, cmd);
    }

    private static void run(List<String> cmd, Path dir) {
        LocalPostgres.run(cmd, dir, java.time.Duration.ofSeconds(180));
    }
}
