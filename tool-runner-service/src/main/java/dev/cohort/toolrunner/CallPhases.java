package dev.cohort.toolrunner;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;
import java.util.Locale;
import org.jboss.logging.Logger;

/**
 * Where a {@code bash} call's time goes inside the runner, as timers {@code cohort.toolrunner.bash.phase{phase}} (plus {@code request-to-service}, from the request's
 * arrival to {@code ToolService}, and {@code total-in-service}): each
 * phase ends at one mark of the call's worker thread (marks not reached are skipped, so a phase then covers the span
 * since the previous mark reached). The benchmark reads them from {@code /q/metrics}; a few nanoTime reads per call.
 * A call that took 10 ms or more is logged at DEBUG (category {@value #SLOW_CALLS}) with
 * its phases, so that a benchmark can tell what its slowest calls are made of.
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
    /** Marks of the output's reader thread during a warm sandbox's {@code process-run}: the acknowledgement read, the end of the output. */
    public static final int ACKED = 9;
    public static final int OUTPUT_END = 10;
    /** The phase that ends at each mark. */
    static final String[] NAMES = {"", "validate-locate", "slot", "args-hash", "journal-insert", "args-policy",
        "to-process-start", "process-run", "after-exit"};

    private static final ThreadLocal<long[]> CURRENT = new ThreadLocal<>();
    /**
     * The log category of slow calls: lower case, so that an environment variable can turn it on
     * ({@code QUARKUS_LOG_CATEGORY__DEV_COHORT_TOOLRUNNER_SLOWCALLS__LEVEL=DEBUG}; such a name cannot carry capitals).
     */
    public static final String SLOW_CALLS = "dev.cohort.toolrunner.slowcalls";
    /** A call this slow (from its request's arrival) is logged at DEBUG with its phases, for a benchmark's tail. */
    private static final long SLOW_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final Logger LOG = Logger.getLogger(SLOW_CALLS);

    private final Timer[] timers = new Timer[NAMES.length];
    /** {@code process-run} of a warm sandbox in parts: header → acknowledgement read, → output's end, → exit seen. */
    private final Timer toAck;
    private final Timer ackToOutputEnd;
    private final Timer outputEndToExit;
    private final Timer total;
    private final Timer beforeService;

    public CallPhases(MeterRegistry meters) {
        for (int i = 1; i < NAMES.length; i++) {
            timers[i] = Timer.builder("cohort.toolrunner.bash.phase").tag("phase", NAMES[i]).register(meters);
        }
        total = Timer.builder("cohort.toolrunner.bash.phase").tag("phase", "total-in-service").register(meters);
        toAck = Timer.builder("cohort.toolrunner.bash.phase").tag("phase", "process-run.to-ack").register(meters);
        ackToOutputEnd = Timer.builder("cohort.toolrunner.bash.phase").tag("phase", "process-run.ack-to-output-end")
                .register(meters);
        outputEndToExit = Timer.builder("cohort.toolrunner.bash.phase").tag("phase", "process-run.output-end-to-exit-seen")
                .register(meters);
        beforeService = Timer.builder("cohort.toolrunner.bash.phase").tag("phase", "request-to-service").register(meters);
    }

    /** Starts the marks of a call on this thread. */
    public static long[] begin() {
        long[] a = new long[OUTPUT_END + 1];
        a[ENTRY] = System.nanoTime();
        CURRENT.set(a);
        return a;
    }

    /** The marks of the call being timed on this thread, for another thread's marks ({@link #markOn}); null when none. */
    public static long[] current() {
        return CURRENT.get();
    }

    /** Marks {@code mark} now in {@code marks} from another thread (visible to the call's thread after a join). */
    public static void markOn(long[] marks, int mark) {
        if (marks != null) {
            marks[mark] = System.nanoTime();
        }
    }

    /** Marks {@code mark} now, when a call is being timed on this thread. */
    public static void mark(int mark) {
        long[] a = CURRENT.get();
        if (a != null) {
            a[mark] = System.nanoTime();
        }
    }

    /** Ends the marks of this thread's call; records them when {@code record}. */
    public void end(long[] a, boolean record, long arrivedNanos) {
        CURRENT.remove();
        if (!record) {
            return;
        }
        a[END] = System.nanoTime();
        long prev = a[ENTRY];
        for (int i = 1; i < NAMES.length; i++) {
            if (a[i] != 0) {
                timers[i].record(a[i] - prev, TimeUnit.NANOSECONDS);
                prev = a[i];
            }
        }
        if (a[STARTED] != 0 && a[ACKED] != 0 && a[OUTPUT_END] != 0 && a[EXITED] != 0) {
            toAck.record(a[ACKED] - a[STARTED], TimeUnit.NANOSECONDS);
            ackToOutputEnd.record(a[OUTPUT_END] - a[ACKED], TimeUnit.NANOSECONDS);
            // the exit is usually seen after the output's end; when before, this part is 0
            outputEndToExit.record(Math.max(0, a[EXITED] - a[OUTPUT_END]), TimeUnit.NANOSECONDS);
        }
        total.record(a[END] - a[ENTRY], TimeUnit.NANOSECONDS);
        if (arrivedNanos != 0 && arrivedNanos <= a[ENTRY]) {
            beforeService.record(a[ENTRY] - arrivedNanos, TimeUnit.NANOSECONDS);
        }
        if (LOG.isDebugEnabled() && a[END] - (arrivedNanos != 0 && arrivedNanos <= a[ENTRY] ? arrivedNanos : a[ENTRY])
                >= SLOW_NANOS) {
            LOG.debug(slowCall(a, arrivedNanos));
        }
    }

    /** One slow call's phases in ms, in the order of a call: what the tail is made of. */
    static String slowCall(long[] a, long arrivedNanos) {
        StringBuilder b = new StringBuilder("slow bash call (ms):");
        if (arrivedNanos != 0 && arrivedNanos <= a[ENTRY]) {
            b.append(String.format(Locale.ROOT, " request-to-service %.2f", (a[ENTRY] - arrivedNanos) / 1e6));
        }
        long prev = a[ENTRY];
        for (int i = 1; i < NAMES.length; i++) {
            if (a[i] != 0) {
                b.append(String.format(Locale.ROOT, " %s %.2f", NAMES[i], (a[i] - prev) / 1e6));
                prev = a[i];
            }
        }
        if (a[STARTED] != 0 && a[ACKED] != 0 && a[OUTPUT_END] != 0 && a[EXITED] != 0) {
            b.append(String.format(Locale.ROOT,
                    " (process-run: to-ack %.2f, ack-to-output-end %.2f, output-end-to-exit-seen %.2f)",
                    (a[ACKED] - a[STARTED]) / 1e6, (a[OUTPUT_END] - a[ACKED]) / 1e6,
                    Math.max(0, a[EXITED] - a[OUTPUT_END]) / 1e6));
        }
        return b.append(String.format(Locale.ROOT, " total %.2f", (a[END] - a[ENTRY]) / 1e6)).toString();
    }
}
