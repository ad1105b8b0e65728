package dev.cohort.host.store;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.time.Duration;
import org.jboss.logging.Logger;

/**
 * Work against the store that must not be given up because the database is briefly away: a Kafka record being stored
 * (a prompt, an inbox item, a teammate's event) is retried with backoff while the failure is the store's connection or
 * server ({@link #unavailable}), instead of going to the dead-letter topic as if the record were bad. A failure of
 * the data itself is thrown at once, and so is a store still away after the patience (then the record's channel
 * handles it as before).
 */
public final class StoreRetry {
    private static final Logger LOG = Logger.getLogger(StoreRetry.class);

    /** How long a record waits for the store before its failure is let through. */
    public static final Duration PATIENCE = Duration.ofMinutes(5);

    /** Sleeps between attempts (tests pass one that does not wait). */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(long millis) throws InterruptedException;
    }

    private StoreRetry() {
    }

    /** Runs {@code work}, retrying it while the store is unavailable, for at most {@link #PATIENCE}. */
    public static void run(String what, Runnable work) {
        run(what, work, PATIENCE, Thread::sleep);
    }

    static void run(String what, Runnable work, Duration patience, Sleeper sleeper) {
        long deadline = System.nanoTime() + patience.toNanos();
        long backoffMs = 100;
        for (int attempt = 1; ; attempt++) {
            try {
                work.run();
                if (attempt > 1) {
                    LOG.infof("%s: done at attempt %d (the store answers again)", what, attempt);
                }
                return;
            } catch (RuntimeException e) {
                if (!unavailable(e) || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                LOG.warnf("%s: store unavailable (%s); retrying in %d ms (attempt %d)", what, e.toString(), backoffMs,
                        attempt);
            }
            try {
                sleeper.sleep(backoffMs);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(what + ": interrupted while waiting for the store", ie);
            }
            backoffMs = Math.min(backoffMs * 2, 5_000);
        }
    }

    /**
     * A failure of the store's connection or server (SQLState class 08 connection, 53 resources, 57 operator
     * intervention such as a shutdown, or none at all, as a pool's acquisition timeout has), anywhere in the causes:
     * worth trying again later, unlike a failure of the data (a constraint, a type).
     */
    public static boolean unavailable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLTransientException || t instanceof SQLRecoverableException
                    || t instanceof SQLNonTransientConnectionException) {
                return true;
            }
            if (t instanceof SQLException sql) {
                String state = sql.getSQLState();
                return state == null || state.startsWith("08") || state.startsWith("53") || state.startsWith("57");
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}
