package dev.cohort.toolrunner;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link CallPhases#slowCall}: a slow call's log line names its phases in the order of a call, in ms. */
class CallPhasesTest {
    private static final long MS = 1_000_000L;

    @Test
    void aWarmCallsLineHasEveryPhaseReachedAndTheThreePartsOfItsProcessRun() {
        long t = 1_000 * MS;
        long[] a = new long[CallPhases.OUTPUT_END + 1];
        a[CallPhases.ENTRY] = t;
        a[CallPhases.LOCATED] = t + MS / 10;
        a[CallPhases.JOURNALED] = t + MS;
        a[CallPhases.STARTED] = t + 2 * MS;
        a[CallPhases.ACKED] = t + 3 * MS;
        a[CallPhases.OUTPUT_END] = t + 9 * MS;
        a[CallPhases.EXITED] = t + 10 * MS;
        a[CallPhases.END] = t + 11 * MS;

        String line = CallPhases.slowCall(a, t - 2 * MS);

        assertThat(line).isEqualTo("slow bash call (ms): request-to-service 2.00 validate-locate 0.10"
                + " journal-insert 0.90 to-process-start 1.00 process-run 8.00 after-exit 1.00"
                + " (process-run: to-ack 1.00, ack-to-output-end 6.00, output-end-to-exit-seen 1.00) total 11.00");
    }

    @Test
    void aColdCallHasNoPartsAndAnExitSeenBeforeTheOutputsEndCountsAsZero() {
        long t = 5 * MS;
        long[] a = new long[CallPhases.OUTPUT_END + 1];
        a[CallPhases.ENTRY] = t;
        a[CallPhases.STARTED] = t + MS;
        a[CallPhases.EXITED] = t + 3 * MS;
        a[CallPhases.END] = t + 4 * MS;
        assertThat(CallPhases.slowCall(a, 0))
                .isEqualTo("slow bash call (ms): to-process-start 1.00 process-run 2.00 after-exit 1.00 total 4.00");

        a[CallPhases.ACKED] = t + 2 * MS;
        a[CallPhases.OUTPUT_END] = t + 4 * MS;
        assertThat(CallPhases.slowCall(a, 0)).contains("output-end-to-exit-seen 0.00");
    }
}
