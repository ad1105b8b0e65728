package dev.cohort.toolrunner;

import io.quarkus.logging.Log;
import java.util.ArrayList;
import java.util.List;

/**
 * Work that should not compete with a call for the CPU while the call is being answered: started once its response
 * is written. The HTTP resource opens a scope around a call ({@link #open()}), runs what was deferred when the
 * response ends ({@link #close()} hands it over), and anything deferred outside a scope (tests calling the service
 * directly, background jobs) runs at once. Used for a warm sandbox's replacement start (bubblewrap's namespace and
 * mount set-up is ~5 ms of CPU; on two cores it slowed the very call that took the sandbox).
 */
public final class AfterResponse {
    private static final ThreadLocal<List<Runnable>> PENDING = new ThreadLocal<>();

    private AfterResponse() {
    }

    /** Opens a scope on this thread: what is deferred until {@link #close()} waits for the response. */
    public static void open() {
        PENDING.set(new ArrayList<>(1));
    }

    /** Runs {@code r} after the current call's response, or now when no call scope is open on this thread. */
    public static void defer(Runnable r) {
        List<Runnable> l = PENDING.get();
        if (l == null) {
            r.run();
        } else {
            l.add(r);
        }
    }

    /** Closes this thread's scope; returns what was deferred (to run when the response has been written). */
    public static List<Runnable> close() {
        List<Runnable> l = PENDING.get();
        PENDING.remove();
        return l == null ? List.of() : l;
    }

    /** Runs each task, so that one failing does not keep the others from running. */
    public static void runAll(List<Runnable> tasks) {
        for (Runnable r : tasks) {
            try {
                r.run();
            } catch (RuntimeException e) {
                Log.warnf(e, "deferred task failed");
            }
        }
    }
}
