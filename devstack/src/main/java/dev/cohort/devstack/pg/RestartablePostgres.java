package dev.cohort.devstack.pg;

import dev.cohort.devstack.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A PostgreSQL server that can be stopped (as a crash: {@code pg_ctl -m immediate}) and started again on the same
 * data directory and port: the "database down, database back" fault of the reliability suite.
 *
 * <p>Binaries as for {@link LocalPostgres}: {@code PG_BIN}, else Debian's {@code /usr/lib/postgresql/N/bin}, else
 * zonky's from Maven Central ({@link ZonkyBinaries}, run here with {@code initdb} and {@code pg_ctl} directly, since
 * zonky's embedded server cannot be restarted on its data directory); {@code COHORT_DEVSTACK_PG=debian|zonky} forces
 * one. PostgreSQL refuses to run as root: as root, Debian's binaries run as the {@code postgres} OS user through
 * {@code runuser}, zonky's in a user namespace of their own ({@code unshare -U}, as zonky does). Same settings as
 * {@link LocalPostgres} (loopback, fsync off) except {@code synchronous_commit}, which stays on: an immediate stop is
 * a server crash, not a machine crash, so every committed row must survive it (in the OS page cache, replayed from
 * the WAL), as on a real server.
 */
public final class RestartablePostgres implements AutoCloseable {

    private final Binaries binaries;
    private final Path dir;
    private final Path data;
    private final int port;
    private final boolean root;
    private final Thread hook;
    private boolean running;
    private boolean closed;

    private RestartablePostgres(Binaries binaries, Path dir, int port, boolean root) {
        this.binaries = binaries;
        this.dir = dir;
        this.data = dir.resolve("data");
        this.port = port;
        this.root = root;
        this.hook = new Thread(this::stopQuietly, "cohort-pg-r-stop");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** The binaries in use and how they run as root. */
    private record Binaries(Path bin, String provider) {

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

    /** initdb in a temp directory, starts the server on a free loopback port, creates the {@code cohort} database. */
    public static RestartablePostgres start() {
        Binaries binaries = binaries();
        boolean root = "root".equals(System.getProperty("user.name"));
        Path dir;
        try {
            dir = Files.createTempDirectory("cohort-pg-r-");
            if (root && binaries.provider().equals("debian")) {
                run(List.of("chown", "-R", "postgres:postgres", dir.toString()), null);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        RestartablePostgres pg = new RestartablePostgres(binaries, dir, Ports.free(), root);
        try {
            run(pg.asUser(List.of(binaries.tool("initdb"), "-D", pg.data.toString(), "-U", LocalPostgres.USER, "-A",
                    "trust", "-E", "UTF8", "--locale=C", "--no-sync")), dir);
            pg.restart();
            pg.createDatabase();
        } catch (RuntimeException e) {
            pg.close();
            throw e;
        }
        return pg;
    }

    /** {@code debian} or {@code zonky}: which binaries run (as {@link LocalPostgres#provider()}). */
    public String provider() {
        return binaries.provider();
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
            run(asUser(List.of(binaries.tool("pg_ctl"), "-D", data.toString(), "-m", "immediate", "-w", "stop")), dir);
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
        run(asUser(List.of(binaries.tool("pg_ctl"), "-D", data.toString(), "-l", dir.resolve("server.log").toString(),
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

    private static Binaries binaries() {
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

    private List<String> asUser(List<String> cmd) {
        return binaries.asUser(root, cmd);
    }

    private static void run(List<String> cmd, Path dir) {
        LocalPostgres.run(cmd, dir, Duration.ofSeconds(180));
    }
}
