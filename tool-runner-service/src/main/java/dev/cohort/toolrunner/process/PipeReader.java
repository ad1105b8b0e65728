package dev.cohort.toolrunner.process;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A blocking read of a process's pipe, on a pooled platform thread. A virtual thread blocked in a pipe read (a
 * {@code FileInputStream}, which the JDK cannot park) holds its carrier and makes the scheduler add a compensating
 * one; with two or three such reads per {@code bash} call (the output, a warm sandbox's ready byte) that carrier churn
 * was the largest share of the runner's CPU per call. A pooled platform thread just sleeps in {@code read(2)}.
 */
public final class PipeReader {
    /** Idle threads are kept for a minute (the executor's default), so calls in a row reuse them. */
    private static final ExecutorService THREADS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "process-pipe");
        t.setDaemon(true);
        return t;
    });

    private final CountDownLatch done = new CountDownLatch(1);

    private PipeReader() {
    }

    /** Runs {@code read} on a pooled thread. */
    public static PipeReader start(Runnable read) {
        PipeReader r = new PipeReader();
        THREADS.execute(() -> {
            try {
                read.run();
            } finally {
                r.done.countDown();
            }
        });
        return r;
    }

    /** Waits up to {@code d} for the read to end; {@code true} when it has. */
    boolean join(Duration d) throws InterruptedException {
        return done.await(d.toNanos(), TimeUnit.NANOSECONDS);
    }
}
