package dev.cohort.toolrunner;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link AfterResponse}: deferred work waits for the call's response, and nothing deferred is lost. */
class AfterResponseTest {
    @Test
    void workDeferredInsideACallScopeWaitsUntilTheScopeIsClosedAndItsTasksAreRun() {
        List<String> ran = new ArrayList<>();
        AfterResponse.open();
        AfterResponse.defer(() -> ran.add("refill"));
        assertThat(ran).as("not while the call is being answered").isEmpty();

        List<Runnable> deferred = AfterResponse.close();
        assertThat(ran).isEmpty();
        AfterResponse.runAll(deferred);

        assertThat(ran).containsExactly("refill");
    }

    @Test
    void workDeferredOutsideACallScopeRunsAtOnce() {
        List<String> ran = new ArrayList<>();
        AfterResponse.defer(() -> ran.add("now"));
        assertThat(ran).containsExactly("now");
        assertThat(AfterResponse.close()).isEmpty();
    }

    @Test
    void aFailingTaskDoesNotKeepTheOthersFromRunning() {
        List<String> ran = new ArrayList<>();
        AfterResponse.runAll(List.of(() -> {
            throw new IllegalStateException("boom");
        }, () -> ran.add("second")));
        assertThat(ran).containsExactly("second");
    }
}
