package dev.cohort.toolrunner.service;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;

/**
 * Where a {@code bash} call's time goes inside the runner, as timers {@code cohort.toolrunner.bash.phase{phase}} (plus {@code request-to-service}, from the request's
 * arrival to {@code ToolService}, and {@code total-in-service}): each
 * phase ends at one mark of the call's worker thread (marks not reached are skipped, so a phase then covers the span
 * since the previous mark reached). The benchmark reads them from {@code /q/metrics}; a few nanoTime reads per call.
 */
public final class CallPhases {
    public static final int ENTRY = 0;
    public static final int LOCATED = 1;
    public static final int SLOT = 2;
    public static final int HASHED = 3;
    public static final int JOURNALED = 4;
    public static final int POLICY = 5;
    public static final int STARTED = 6;
    public static final int EXITED = 7;
    public static final int END = 8;
    /** The phase that ends at each mark. */
    static final String[] NAMES = {"", "validate-locate", "slot", "args-hash", "journal-insert", "args-policy",
        "to-process-start", "process-run", "after-exit"};

    private static final ThreadLocal<long[]> CURRENT = new ThreadLocal<>();

    private final Timer[] timers = new Timer[NAMES.length];
    private final Timer total;
    private final Timer beforeService;

    CallPhases(MeterRegistry meters) {
        for (int i = 1; i < NAMES.length; i++) {
            timers[i] = Timer.builder("cohort.toolrunner.bash.phase").tag("phase", NAMES[i]).register(meters);
        }
        total = Timer.builder("cohort.toolrunner.bash.phase").tag("phase", "total-in-service").register(meters);
        beforeService = Timer.builder("cohort.toolrunner.bash.phase").tag("phase", "request-to-service").register(meters);
    }

    /** Starts the marks of a call on this thread. */
    static long[] begin() {
        long[] a = new long[NAMES.length];
        a[ENTRY] = System.nanoTime();
        CURRENT.set(a);
        return a;
    }

    /** Marks {@code mark} now, when a call is being timed on this thread. */
    public static void mark(int mark) {
        long[] a = CURRENT.get();
        if (a != null) {
            a[mark] = System.nanoTime();
        }
    }

    /** Ends the marks of this thread's call; records them when {@code record}. */
    void end(long[] a, boolean record, long arrivedNanos) {
        CURRENT.remove();
        if (!record) {
            return;
        }
        a[END] = System.nanoTime();
        long prev = a[ENTRY];
        for (int i = 1; i < a.length; i++) {
            if (a[i] != 0) {
                timers[i].record(a[i] - prev, TimeUnit.NANOSECONDS);
                prev = a[i];
            }
        }
        total.record(a[END] - a[ENTRY], TimeUnit.NANOSECONDS);
        if (arrivedNanos != 0 && arrivedNanos <= a[ENTRY]) {
            beforeService.record(a[ENTRY] - arrivedNanos, TimeUnit.NANOSECONDS);
        }
    }
}
