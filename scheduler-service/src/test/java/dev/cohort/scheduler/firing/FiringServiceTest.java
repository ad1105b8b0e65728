package dev.cohort.scheduler.firing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.PromptRecord;
import dev.cohort.core.protocol.Topics;
import dev.cohort.scheduler.jobs.CronJob;
import dev.cohort.scheduler.jobs.CronJobRepository;
import dev.cohort.scheduler.jobs.MissedPolicy;
import dev.cohort.scheduler.support.KafkaTopics;
import dev.cohort.scheduler.support.ManualClock;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.TimeUnit;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Firing against the real PostgreSQL and Kafka, with scheduler replicas simulated as several {@link FiringService}
 * instances, each with its own clock. The clocks stand in the 2090s, so the application's own scheduler (on real
 * time) never finds these jobs due; each test starts from an empty job table.
 */
@QuarkusTest
class FiringServiceTest {

    private static final FiringService.Settings SETTINGS = new FiringService.Settings(Duration.ofSeconds(60), 200,
            Duration.ofSeconds(60)); // publish timeout: generous, Kafka acks are slow on a loaded machine

    @Inject
    CronJobRepository repository;
    @Inject
    FiringPublisher kafka;

    @BeforeEach
    void emptyJobTable() throws Exception {
        try (Connection c = repository.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM scheduler.cron_job");
        }
    }

    @Test
    void twoReplicasFireAnEveryMinuteJobExactlyOncePerMinuteOverThreeMinutes() throws Exception {
        Instant m0 = Instant.parse("2090-01-01T00:00:00Z");
        CronJob job = job("every-minute", "* * * * *", true, MissedPolicy.SKIP, m0);
        repository.insert(job);
        ManualClock clock = new ManualClock(m0.minusSeconds(1));
        CountingPublisher published = new CountingPublisher(kafka);
        List<FiringService> replicas = List.of(new FiringService("replica-a", repository, clock, published, SETTINGS),
                new FiringService("replica-b", repository, clock, published, SETTINGS));

        AtomicBoolean stop = new AtomicBoolean();
        List<AtomicLong> ticks = List.of(new AtomicLong(), new AtomicLong());
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<?>> loops = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            FiringService replica = replicas.get(i);
            AtomicLong count = ticks.get(i);
            loops.add(pool.submit(() -> {
                while (!stop.get()) {
                    replica.tick();
                    count.incrementAndGet();
                    LockSupport.parkNanos(2_000_000); // a replica's poll interval, compressed
                }
                return null;
            }));
        }
        try {
            for (int minute = 0; minute < 3; minute++) {
                for (long millis : new long[] {0, 100, 500, 1_000, 10_000, 30_000, 59_999}) {
                    clock.set(m0.plusSeconds(60L * minute).plusMillis(millis));
                    long a = ticks.get(0).get();
                    long b = ticks.get(1).get();
                    // both replicas have ticked at least twice at this time
                    await().atMost(Duration.ofSeconds(60))
                            .until(() -> ticks.get(0).get() >= a + 2 && ticks.get(1).get() >= b + 2);
                }
            }
        } finally {
            stop.set(true);
            pool.shutdown();
            assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
        }
        for (Future<?> loop : loops) {
            loop.get();
        }

        List<Instant> expected = List.of(m0, m0.plusSeconds(60), m0.plusSeconds(120));
        assertThat(published.dueTimes()).containsExactlyInAnyOrderElementsOf(expected);
        List<PromptRecord> prompts = await().atMost(Duration.ofSeconds(60))
                .until(() -> promptsOf(job.id()), p -> p.size() >= 3);
        assertThat(prompts).extracting(PromptRecord::idempotencyKey)
                .containsExactlyInAnyOrder("cron/" + job.id() + "/" + m0, "cron/" + job.id() + "/" + m0.plusSeconds(60),
                        "cron/" + job.id() + "/" + m0.plusSeconds(120));
        assertThat(prompts).extracting(PromptRecord::id).doesNotHaveDuplicates();
        assertThat(repository.find(job.team(), job.id())).get()
                .extracting(CronJob::fireCount, CronJob::nextFireAt).containsExactly(3L, m0.plusSeconds(180));
    }

    @Test
    void aRestartDuringTheDueMinuteDoesNotFireTwice() {
        Instant m0 = Instant.parse("2091-03-01T08:00:00Z");
        CronJob job = job("restart", "* * * * *", true, MissedPolicy.FIRE_ONCE, m0);
        repository.insert(job);
        ManualClock clock = new ManualClock(m0.plusMillis(200));
        CountingPublisher published = new CountingPublisher(kafka);

        assertThat(new FiringService("before-restart", repository, clock, published, SETTINGS).tick().fired()).isEqualTo(1);
        FiringService restarted = new FiringService("after-restart", repository, clock, published, SETTINGS);
        clock.set(m0.plusSeconds(30));
        assertThat(restarted.tick().fired()).isZero();
        clock.set(m0.plusSeconds(59));
        assertThat(restarted.tick().fired()).isZero();
        clock.set(m0.plusSeconds(60));
        assertThat(restarted.tick().fired()).isEqualTo(1);

        assertThat(published.dueTimes()).containsExactly(m0, m0.plusSeconds(60));
        assertThat(await().atMost(Duration.ofSeconds(60)).until(() -> promptsOf(job.id()), p -> p.size() >= 2)).hasSize(2);
    }

    @Test
    void aFiringWhoseAcknowledgementIsLostIsRetriedWithTheSameMessageId() {
        Instant m0 = Instant.parse("2092-01-01T00:00:00Z");
        CronJob job = job("lost-ack", "0 * * * *", true, MissedPolicy.SKIP, m0);
        repository.insert(job);
        ManualClock clock = new ManualClock(m0.plusSeconds(1));
        // the record reaches Kafka, but the replica never learns it did (as if it crashed before committing)
        FiringPublisher lostAck = f -> kafka.publish(f).thenCompose(v -> CompletableFuture.failedFuture(
                new IllegalStateException("acknowledgement lost")));

        assertThat(new FiringService("crashes", repository, clock, lostAck, SETTINGS).tick().failed()).isEqualTo(1);
        assertThat(repository.find(job.team(), job.id())).get().extracting(CronJob::nextFireAt).isEqualTo(m0);
        clock.set(m0.plusSeconds(2));
        assertThat(new FiringService("survivor", repository, clock, kafka, SETTINGS).tick().fired()).isEqualTo(1);

        List<PromptRecord> prompts = await().atMost(Duration.ofSeconds(60)).until(() -> promptsOf(job.id()), p -> p.size() >= 2);
        // the duplicate is the same message: consumers dedupe on id
        assertThat(prompts).extracting(PromptRecord::id).hasSize(2).containsOnly(prompts.get(0).id());
        assertThat(repository.find(job.team(), job.id())).get().extracting(CronJob::nextFireAt).isEqualTo(m0.plusSeconds(3600));
    }

    @Test
    void aOneShotJobIsRemovedOnlyAfterItsPublishIsAcknowledgedAndFiresOnce() {
        Instant m0 = Instant.parse("2093-06-01T12:30:00Z");
        CronJob job = job("one-shot", "30 12 * * *", false, MissedPolicy.SKIP, m0);
        repository.insert(job);
        ManualClock clock = new ManualClock(m0.plusMillis(100));
        FiringPublisher brokerDown = f -> CompletableFuture.failedFuture(new IllegalStateException("broker down"));

        assertThat(new FiringService("a", repository, clock, brokerDown, SETTINGS).tick())
                .isEqualTo(new FiringService.TickResult(0, 0, 0, 1));
        assertThat(repository.find(job.team(), job.id())).as("kept while unacknowledged").isPresent();

        clock.set(m0.plusSeconds(5));
        FiringService healthy = new FiringService("b", repository, clock, kafka, SETTINGS);
        assertThat(healthy.tick().fired()).isEqualTo(1);
        assertThat(repository.find(job.team(), job.id())).as("gone once acknowledged").isEmpty();
        clock.set(m0.plus(Duration.ofDays(1)));
        assertThat(healthy.tick().fired()).isZero();
        assertThat(await().atMost(Duration.ofSeconds(60)).until(() -> promptsOf(job.id()), p -> !p.isEmpty())).hasSize(1);
    }

    @Test
    void aCancelledJobNeverFiresAgainEvenWhenCancelledDuringAFiring() throws Exception {
        Instant m0 = Instant.parse("2094-01-01T00:00:00Z");
        CronJob job = job("cancel", "* * * * *", true, MissedPolicy.FIRE_ONCE, m0);
        repository.insert(job);
        ManualClock clock = new ManualClock(m0);
        CountDownLatch publishing = new CountDownLatch(1);
        CompletableFuture<Void> release = new CompletableFuture<>();
        CountingPublisher published = new CountingPublisher(f -> {
            publishing.countDown();
            return release.thenCompose(v -> kafka.publish(f));
        });
        FiringService replica = new FiringService("a", repository, clock, published, SETTINGS);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<FiringService.TickResult> tick = pool.submit(replica::tick);
            assertThat(publishing.await(60, TimeUnit.SECONDS)).isTrue();
            // the cancel waits for the in-flight firing's row lock, then deletes
            Future<Boolean> cancel = pool.submit(() -> repository.delete(job.team(), job.id()));
            release.complete(null);
            assertThat(tick.get(60, TimeUnit.SECONDS).fired()).isEqualTo(1);
            assertThat(cancel.get(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            pool.shutdownNow();
        }
        for (int minute = 1; minute <= 3; minute++) {
            clock.set(m0.plusSeconds(60L * minute));
            assertThat(replica.tick().fired()).isZero();
        }
        clock.set(m0.plus(Duration.ofDays(30)));
        assertThat(replica.tick()).isEqualTo(new FiringService.TickResult(0, 0, 0, 0));
        assertThat(published.dueTimes()).containsExactly(m0);
    }

    @Test
    void afterDowntimeSkipFiresNothingAndFireOnceFiresOneCatchUp() {
        Instant m0 = Instant.parse("2095-01-01T10:00:00Z");
        CronJob skip = job("downtime-skip", "0 * * * *", true, MissedPolicy.SKIP, m0);
        CronJob fireOnce = job("downtime-fire-once", "0 * * * *", true, MissedPolicy.FIRE_ONCE, m0);
        repository.insert(skip);
        repository.insert(fireOnce);
        Instant back = m0.plus(Duration.ofHours(5)).plusSeconds(900);
        CountingPublisher published = new CountingPublisher(kafka);

        FiringService.TickResult result = new FiringService("a", repository, new ManualClock(back), published, SETTINGS).tick();

        assertThat(result).isEqualTo(new FiringService.TickResult(1, 1, 0, 0));
        assertThat(published.firings()).singleElement().satisfies(f -> {
            assertThat(f.job().id()).isEqualTo(fireOnce.id());
            assertThat(f.dueAt()).isEqualTo(m0);
            assertThat(f.catchUp()).isTrue();
        });
        Instant nextHour = m0.plus(Duration.ofHours(6));
        assertThat(repository.find(skip.team(), skip.id())).get().extracting(CronJob::nextFireAt, CronJob::fireCount)
                .containsExactly(nextHour, 0L);
        assertThat(repository.find(fireOnce.team(), fireOnce.id())).get().extracting(CronJob::nextFireAt, CronJob::fireCount)
                .containsExactly(nextHour, 1L);
        JsonNode event = await().atMost(Duration.ofSeconds(60))
                .until(() -> eventsOf(fireOnce.id()), e -> !e.isEmpty()).get(0).data();
        assertThat(event.get("catchUp").asBoolean()).isTrue();
        assertThat(event.get("missedSince").asText()).isEqualTo(m0.toString());
    }

    @Test
    void aBrokenRowIsPushedBackAndDoesNotStopTheOtherJobs() {
        Instant m0 = Instant.parse("2095-06-01T00:00:00Z");
        CronJob good = job("healthy", "* * * * *", true, MissedPolicy.SKIP, m0);
        CronJob broken = new CronJob("cron_broken" + System.nanoTime(), "broken", "lead", "61 * * * *", "p", true, true,
                "UTC", MissedPolicy.SKIP, "hand-edited", m0, null, m0, null, 0);
        repository.insert(good);
        repository.insert(broken);

        FiringService.TickResult r = new FiringService("a", repository, new ManualClock(m0.plusMillis(100)), kafka, SETTINGS).tick();

        assertThat(r.fired()).isEqualTo(1);
        assertThat(repository.find(broken.team(), broken.id())).get().extracting(CronJob::nextFireAt)
                .isEqualTo(m0.plusMillis(100).plus(Duration.ofHours(1)));
    }

    @Test
    void nonDurableJobsEndWithTheReplicaThatOwnsThem() {
        Instant now = Instant.parse("2096-01-01T00:00:00Z");
        repository.heartbeat("alive", now);
        repository.heartbeat("silent", now.minusSeconds(60));
        repository.heartbeat("stopped", now);
        CronJob ofAlive = sessionJob("session-alive", "alive", now);
        CronJob ofSilent = sessionJob("session-silent", "silent", now);
        CronJob ofStopped = sessionJob("session-stopped", "stopped", now);
        CronJob durable = job("session-durable", "0 * * * *", true, MissedPolicy.SKIP, now);
        List.of(ofAlive, ofSilent, ofStopped, durable).forEach(repository::insert);

        assertThat(repository.purgeOrphanedSessionJobs("me", now.minusSeconds(15))).isEqualTo(1);
        assertThat(repository.removeInstance("stopped")).isEqualTo(1);

        assertThat(repository.find(ofAlive.team(), ofAlive.id())).isPresent();
        assertThat(repository.find(ofSilent.team(), ofSilent.id())).isEmpty();
        assertThat(repository.find(ofStopped.team(), ofStopped.id())).isEmpty();
        assertThat(repository.find(durable.team(), durable.id())).isPresent();
    }

    private static CronJob job(String team, String cron, boolean recurring, MissedPolicy policy, Instant next) {
        return new CronJob("cron_" + team.replace("-", "") + System.nanoTime(), team, "lead", cron, "check the build",
                recurring, true, "UTC", policy, "test", next.minusSeconds(3600), null, next, null, 0);
    }

    private static CronJob sessionJob(String team, String owner, Instant next) {
        return new CronJob("cron_" + team.replace("-", "") + System.nanoTime(), team, "lead", "0 * * * *", "p", true,
                false, "UTC", MissedPolicy.SKIP, "test", next, owner, next, null, 0);
    }

    private static List<PromptRecord> promptsOf(String jobId) {
        return KafkaTopics.readAll(Topics.PROMPTS).stream().map(ConsumerRecord::value)
                .filter(v -> v.contains(jobId)).map(v -> Json.read(v, PromptRecord.class))
                .filter(p -> jobId.equals(p.cronJobId())).toList();
    }

    private static List<Event> eventsOf(String jobId) {
        return KafkaTopics.readAll(Topics.EVENTS).stream().map(ConsumerRecord::value)
                .filter(v -> v.contains(jobId)).map(Event::parse)
                .filter(e -> e.type() == EventType.CRON_FIRED && jobId.equals(e.data().path("jobId").asText())).toList();
    }

    /** Records every firing handed to the real publisher. */
    static final class CountingPublisher implements FiringPublisher {
        private final FiringPublisher delegate;
        private final List<Firing> firings = Collections.synchronizedList(new ArrayList<>());

        CountingPublisher(FiringPublisher delegate) {
            this.delegate = delegate;
        }

        @Override
        public CompletionStage<Void> publish(Firing firing) {
            firings.add(firing);
            return delegate.publish(firing);
        }

        List<Firing> firings() {
            return List.copyOf(firings);
        }

        List<Instant> dueTimes() {
            return firings().stream().map(Firing::dueAt).toList();
        }
    }
}
