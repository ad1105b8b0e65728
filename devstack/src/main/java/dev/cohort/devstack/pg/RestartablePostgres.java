package dev.cohort.devstack.pg;

import dev.cohort.devstack.Ports;
import java.time.Duration;

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
 *
 * <p>Credentials as for {@link LocalPostgres}: a password for every connection, the application role
 * {@link LocalPostgres#USER} owning the database ({@link #username()}, {@link #password()}), the superuser's password
 * in this object's memory only. Both hold across a restart: the server keeps their SCRAM verifiers in its data
 * directory, this object the passwords, and a restart itself needs neither.
 */
public final class RestartablePostgres implements AutoCloseable {

    private static final Duration TIMEOUT = Duration.ofSeconds(180);

    private final PgCluster cluster;
    private final String provider;
    private final String password;
    private final Thread hook;
    private boolean running;
    private boolean closed;

    private RestartablePostgres(PgCluster cluster, String provider, String password) {
        this.cluster = cluster;
        this.provider = provider;
        this.password = password;
        this.hook = new Thread(this::stopQuietly, "cohort-pg-r-stop");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /**
     * initdb in a temp directory, starts the server on a free loopback port, creates the {@code cohort} database owned
     * by the application role (a fresh password).
     */
    public static RestartablePostgres start() {
        PgCluster.Binaries binaries = PgCluster.binaries();
        PgCluster cluster = PgCluster.init(binaries, Ports.free(), "cohort-pg-r-", TIMEOUT);
        RestartablePostgres pg = new RestartablePostgres(cluster, binaries.provider(), PgCluster.newPassword());
        try {
            pg.restart();
            cluster.createOwnedDatabase(LocalPostgres.USER, pg.password, LocalPostgres.DATABASE, 600);
        } catch (RuntimeException e) {
            pg.close();
            throw e;
        }
        return pg;
    }

    /** {@code debian} or {@code zonky}: which binaries run (as {@link LocalPostgres#provider()}). */
    public String provider() {
        return provider;
    }

    /** {@code jdbc:postgresql://127.0.0.1:<port>/cohort}; the same before and after a restart. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + cluster.port() + "/" + LocalPostgres.DATABASE;
    }

    /** The application role {@link LocalPostgres#USER}: what the services log in as. */
    public String username() {
        return LocalPostgres.USER;
    }

    /** The application role's password; the same before and after a restart. */
    public String password() {
        return password;
    }

    /** The superuser {@link LocalPostgres#SUPERUSER}, for what the application role may not do; never a service's. */
    public String superuser() {
        return LocalPostgres.SUPERUSER;
    }

    public String superuserPassword() {
        return cluster.superuserPassword();
    }

    public int port() {
        return cluster.port();
    }

    public synchronized boolean isRunning() {
        return running;
    }

    /** Stops the server at once ({@code -m immediate}: every connection is cut, as when the server crashes). */
    public synchronized void stop() {
        if (running) {
            running = false;
            cluster.stop(TIMEOUT);
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
        // fsync off (the OS page cache survives a server crash), but synchronous_commit ON: with it off a commit
        // returns before its WAL leaves the server's memory, and an immediate stop loses the last ~0.6 s of
        // committed transactions, which a real server (or LocalPostgres' throw-away data) never has to face
        cluster.start("-F -c fsync=off -c synchronous_commit=on -c full_page_writes=off -c max_connections=200",
                Duration.ofSeconds(120));
        running = true;
    }

    /** The cluster: its directory, server log and socket (tests). */
    PgCluster cluster() {
        return cluster;
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
        cluster.delete();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException ignored) {
            // shutting down
        }
    }
}
