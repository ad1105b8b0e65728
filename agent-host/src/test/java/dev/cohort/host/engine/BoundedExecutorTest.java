package dev.cohort.host.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The memory executor's bound: beyond its running and waiting tasks a task is dropped with a warning, never waited for. */
class BoundedExecutorTest {

    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger finished = new AtomicInteger();

    private static BoundedExecutor.Limits limits(int concurrency, int queue) {
        return new BoundedExecutor.Limits(concurrency, queue, "cohort.engine.memory.extraction-concurrency",
                "cohort.engine.memory.extraction-queue");
    }

    /** A task that holds its slot until the test releases it. */
    private Runnable blocking() {
        return () -> {
            started.incrementAndGet();
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            finished.incrementAndGet();
        };
    }

    @AfterEach
    void releaseAll() {
        release.countDown();
    }

    @Test
    void aTaskBeyondTheRunningAndWaitingBoundIsDroppedWithAWarningNamingTheKeysWithoutBlockingTheCaller() {
        BoundedExecutor ex = new BoundedExecutor("memory", limits(1, 1), warnings::add);
        ex.execute(blocking());
        await().atMost(Duration.ofSeconds(30)).until(() -> started.get() == 1);
        ex.execute(blocking()); // waits for the running one: admitted, not started
        assertThat(ex.inFlight()).isEqualTo(2);

        // over the bound: returns (the caller's thread is never parked; a parked one would fail here, not hang)
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> ex.execute(blocking()));

        assertThat(ex.dropped()).isEqualTo(1);
        assertThat(warnings).singleElement().asString().contains("memory is full", "1 running, 1 waiting",
                "cohort.engine.memory.extraction-concurrency", "cohort.engine.memory.extraction-queue", "dropped");
        assertThat(started).hasValue(1); // the waiting one does not run beside the running one

        release.countDown();
        await().atMost(Duration.ofSeconds(30)).until(() -> finished.get() == 2 && ex.inFlight() == 0);
        assertThat(started).as("the dropped task never ran").hasValue(2);
    }

    @Test
    void aFreedSlotAdmitsTheNextTask() {
        BoundedExecutor ex = new BoundedExecutor("memory", limits(1, 0), warnings::add);
        ex.execute(blocking());
        ex.execute(blocking());
        assertThat(ex.dropped()).isEqualTo(1);
        release.countDown();
        await().atMost(Duration.ofSeconds(30)).until(() -> ex.inFlight() == 0);

        CountDownLatch ran = new CountDownLatch(1);
        ex.execute(ran::countDown);
        await().atMost(Duration.ofSeconds(30)).until(() -> ran.getCount() == 0);
        assertThat(ex.dropped()).isEqualTo(1);
    }

    @Test
    void atMostTheConcurrencyRunsAtOnce() {
        BoundedExecutor ex = new BoundedExecutor("memory", limits(2, 10), warnings::add);
        AtomicInteger now = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        CountDownLatch twoIn = new CountDownLatch(2);
        for (int i = 0; i < 8; i++) {
            ex.execute(() -> {
                most.accumulateAndGet(now.incrementAndGet(), Math::max);
                twoIn.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                now.decrementAndGet();
                done.incrementAndGet();
            });
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> twoIn.getCount() == 0);
        assertThat(ex.inFlight()).isEqualTo(8);
        assertThat(most.get()).isEqualTo(2);
        release.countDown();
        await().atMost(Duration.ofSeconds(30)).until(() -> done.get() == 8);
        assertThat(most.get()).isEqualTo(2);
        assertThat(ex.dropped()).isZero();
        assertThat(warnings).isEmpty();
    }

    @Test
    void aFailingTaskGivesItsSlotBack() {
        BoundedExecutor ex = new BoundedExecutor("memory", limits(1, 0), warnings::add);
        ex.execute(() -> {
            throw new IllegalStateException("model down");
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> ex.inFlight() == 0);
        CountDownLatch ran = new CountDownLatch(1);
        ex.execute(ran::countDown);
        await().atMost(Duration.ofSeconds(30)).until(() -> ran.getCount() == 0);
        assertThat(ex.dropped()).isZero();
    }

    @Test
    void afterCloseEveryTaskIsDroppedWithAWarning() {
        BoundedExecutor ex = new BoundedExecutor("memory", limits(4, 4), warnings::add);
        ex.close();
        ex.execute(blocking());
        assertThat(ex.dropped()).isEqualTo(1);
        assertThat(warnings).singleElement().asString().contains("closed");
        assertThat(ex.inFlight()).isZero();
    }

    @Test
    void limitsBelowTheirMinimumsAreRefusedNamingTheKey() {
        assertThatThrownBy(() -> limits(0, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cohort.engine.memory.extraction-concurrency=0 must be at least 1");
        assertThatThrownBy(() -> limits(1, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cohort.engine.memory.extraction-queue=-1 must be at least 0");
    }
}
