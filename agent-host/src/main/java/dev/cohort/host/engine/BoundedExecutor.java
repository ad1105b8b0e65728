package dev.cohort.host.engine;

import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * Background work off the turns' threads (memory extraction and consolidation after every completed turn), with
 * a bound: at most {@code concurrency} tasks run at once, each on its own virtual thread, and at most {@code queue}
 * more wait for one of them to end. A task beyond that is dropped with a warning naming the two keys: {@link #execute}
 * never blocks and never throws, so a turn's end never waits for memory, and a burst of ended turns cannot pile up
 * conversations on the heap or model calls on the provider's rate limit. A waiting task is a parked virtual thread
 * (no platform thread); after {@link #close} every task is dropped. Thread-safe.
 */
public final class BoundedExecutor implements Executor, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(BoundedExecutor.class);

    /**
     * The bounds and the keys that set them (named by the warning).
     *
     * @param concurrency    tasks running at once, ≥ 1
     * @param queue          tasks waiting beyond those, ≥ 0
     * @param concurrencyKey the property of {@code concurrency}
     * @param queueKey       the property of {@code queue}
     */
    public record Limits(int concurrency, int queue, String concurrencyKey, String queueKey) {
        public Limits {
            if (concurrency < 1) {
                throw new IllegalArgumentException(concurrencyKey + "=" + concurrency + " must be at least 1");
            }
            if (queue < 0) {
                throw new IllegalArgumentException(queueKey + "=" + queue + " must be at least 0");
            }
        }
    }

    private final String name;
    private final Limits limits;
    /** Running plus waiting: a task that cannot take one of these is dropped. */
    private final Semaphore admitted;
    private final Semaphore running;
    private final ThreadFactory threads;
    private final Consumer<String> warnings;
    private final AtomicLong dropped = new AtomicLong();
    private volatile boolean closed;

    /** Logs its warnings; threads are virtual, named {@code <name>-<n>}. */
    public BoundedExecutor(String name, Limits limits) {
        this(name, limits, LOG::warn);
    }

    /** With the warnings sent to {@code warnings} (tests). */
    public BoundedExecutor(String name, Limits limits, Consumer<String> warnings) {
        this.name = Objects.requireNonNull(name, "name");
        this.limits = Objects.requireNonNull(limits, "limits");
        this.warnings = Objects.requireNonNull(warnings, "warnings");
        this.admitted = new Semaphore(limits.concurrency() + limits.queue());
        this.running = new Semaphore(limits.concurrency());
        this.threads = Thread.ofVirtual().name(name + "-", 0).factory();
    }

    /** Runs {@code task} in the background, or drops it (with a warning) when the bound is reached or after close. */
    @Override
    public void execute(Runnable task) {
        Objects.requireNonNull(task, "task");
        if (closed) {
            drop("%s is closed: a task was dropped", name);
            return;
        }
        if (!admitted.tryAcquire()) {
            long n = dropped.incrementAndGet();
            warnings.accept(String.format("%s is full (%d running, %d waiting: %s, %s): a task was dropped (%d so far)",
                    name, limits.concurrency(), limits.queue(), limits.concurrencyKey(), limits.queueKey(), n));
            return;
        }
        try {
            threads.newThread(() -> run(task)).start();
        } catch (RuntimeException | OutOfMemoryError e) {
            admitted.release();
            drop("%s could not start a thread: a task was dropped (%s)", name, e);
        }
    }

    private void run(Runnable task) {
        try {
            running.acquire();
            try {
                task.run();
            } finally {
                running.release();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.warnf(e, "%s: a background task failed", name);
        } finally {
            admitted.release();
        }
    }

    private void drop(String format, Object... args) {
        dropped.incrementAndGet();
        warnings.accept(String.format(format, args));
    }

    /** Tasks dropped so far. */
    public long dropped() {
        return dropped.get();
    }

    /** Tasks running or waiting now. */
    public int inFlight() {
        return limits.concurrency() + limits.queue() - admitted.availablePermits();
    }

    public Limits limits() {
        return limits;
    }

    /** Drops every later task; tasks already admitted still run (their threads are virtual: none holds the JVM). */
    @Override
    public void close() {
        closed = true;
    }
}
