package dev.cohort.scheduler.firing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.scheduler.jobs.CronExpression;
import dev.cohort.scheduler.jobs.CronJob;
import dev.cohort.scheduler.jobs.CronJobRepository;
import dev.cohort.scheduler.jobs.MissedPolicy;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Benchmark (runs in the normal build, a few seconds): one minute tick over 10,000 jobs. Prints the numbers recorded
 * in the module README and how they compare with the 50 ms target; it asserts only what the ticks did (how many jobs
 * were due and fired), never a duration: timings on a shared 2-core machine are figures to read, not a pass/fail.
 */
@QuarkusTest
@Tag("benchmark")
class CronTickBenchmarkTest {

    private static final int JOBS = 10_000;
    /** The README's target for one tick; printed next to each figure, not asserted. */
    private static final long TARGET_MS = 50;
    private static final List<String> ZONES = List.of("UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo",
            "Australia/Sydney", "Asia/Kolkata");

    @Inject
    CronJobRepository repository;
    @Inject
    FiringPublisher kafka;

    @Test
    void evaluatingOneMinuteTickOverTenThousandJobsFindsTheDueJobsAndPrintsItsTime() {
        Random random = new Random(42);
        List<String> expressions = new ArrayList<>();
        List<ZoneId> zones = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            expressions.add(randomExpression(random));
            zones.add(ZoneId.of(ZONES.get(random.nextInt(ZONES.size()))));
        }
        Instant minute = Instant.parse("2030-03-31T00:00:00Z");

        double parseAndEvaluate = medianMillis(() -> evaluate(expressions.stream().map(CronExpression::parse).toList(), zones, minute));
        List<CronExpression> parsed = expressions.stream().map(CronExpression::parse).toList();
        int[] due = new int[1];
        double evaluate = medianMillis(() -> {
            due[0] = evaluate(parsed, zones, minute);
            return due[0];
        });

        System.out.printf("BENCHMARK cron tick, %d jobs, pure evaluation (match + next fire): %.2f ms parsed (%s), %.2f ms"
                + " including parsing; %d due%n", JOBS, evaluate, versusTarget(evaluate), parseAndEvaluate, due[0]);
        assertThat(due[0]).isPositive();
    }

    @Test
    void aDatabaseTickOverTenThousandJobsFiresExactlyTheDueJobsAndPrintsItsTime() throws Exception {
        emptyJobTable();
        Instant t = Instant.parse("2097-01-01T00:00:00Z");
        Random random = new Random(7);
        List<CronJob> jobs = new ArrayList<>(JOBS);
        for (int i = 0; i < JOBS; i++) {
            // 100 due now, the rest spread over the next day: a realistic minute
            Instant next = i < 100 ? t : t.plusSeconds(60L * (5 + random.nextInt(1_435)));
            jobs.add(new CronJob("cron_bench" + i, "bench-" + (i % 100), "lead", "* * * * *", "benchmark prompt " + i, true,
                    true, "UTC", MissedPolicy.SKIP, "bench", t.minusSeconds(3600), null, next, null, 0));
        }
        repository.insertAll(jobs);
        try (Connection c = repository.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("ANALYZE scheduler.cron_job");
        }
        FiringPublisher instantAck = f -> CompletableFuture.completedFuture(null);
        FiringService.Settings settings = new FiringService.Settings(Duration.ofSeconds(60), 200, Duration.ofSeconds(10));
        Logger firingLog = Logger.getLogger(FiringService.class.getName());
        Level level = firingLog.getLevel();
        firingLog.setLevel(Level.WARNING); // 10,000 "cron fired" lines would measure the console, not the scheduler
        try {
            // warm-up: JIT and connection pool, without firing anything
            for (int i = 0; i < 5; i++) {
                new FiringService("warm", repository, () -> t.minusSeconds(30), instantAck, settings).tick();
            }
            long t0 = System.nanoTime();
            FiringService.TickResult idle = new FiringService("idle", repository, () -> t.minusSeconds(1), instantAck, settings).tick();
            double idleMs = (System.nanoTime() - t0) / 1e6;

            // the same 100 "* * * * *" jobs due in three consecutive minutes; the first tick also warms the firing path
            double[] hundredMs = new double[3];
            int[] hundredFired = new int[3];
            for (int minute = 0; minute < 3; minute++) {
                Instant now = t.plusSeconds(60L * minute).plusMillis(200);
                t0 = System.nanoTime();
                hundredFired[minute] = new FiringService("a", repository, () -> now, instantAck, settings).tick().fired();
                hundredMs[minute] = (System.nanoTime() - t0) / 1e6;
            }

            // the next minute through the real Kafka producer (acks=all)
            t0 = System.nanoTime();
            FiringService.TickResult viaKafka = new FiringService("b", repository, () -> t.plusSeconds(180).plusMillis(200), kafka,
                    settings).tick();
            double kafkaMs = (System.nanoTime() - t0) / 1e6;

            // worst case: every job due in the same minute
            try (Connection c = repository.dataSource().getConnection(); Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE scheduler.cron_job SET next_fire_at = '2097-01-01T00:10:00Z'");
            }
            t0 = System.nanoTime();
            FiringService.TickResult all = new FiringService("c", repository, () -> t.plusSeconds(600).plusMillis(200), instantAck,
                    settings).tick();
            double allMs = (System.nanoTime() - t0) / 1e6;

            double warmHundredMs = Math.min(hundredMs[1], hundredMs[2]);
            // the 100-due tick is dominated by the transaction's commit (a disk flush) on a shared machine
            System.out.printf("BENCHMARK cron tick, %d jobs in PostgreSQL: idle %.1f ms (%s); 100 due %.1f ms (%s; scheduler"
                    + " only, first/cold %.1f ms), %.1f ms (with Kafka acks); all %d due %.1f ms (scheduler only)%n", JOBS, idleMs,
                    versusTarget(idleMs), warmHundredMs, versusTarget(warmHundredMs), hundredMs[0], kafkaMs, all.fired(), allMs);
            assertThat(List.of(idle.fired(), hundredFired[0], hundredFired[1], hundredFired[2], viaKafka.fired(), all.fired()))
                    .containsExactly(0, 100, 100, 100, 100, JOBS);
        } finally {
            firingLog.setLevel(level);
            emptyJobTable();
        }
    }

    /** "within the 50 ms target" or "over the 50 ms target": a remark for the reader of the printed line. */
    private static String versusTarget(double ms) {
        return (ms <= TARGET_MS ? "within" : "over") + " the " + TARGET_MS + " ms target";
    }

    private static int evaluate(List<CronExpression> crons, List<ZoneId> zones, Instant minute) {
        int due = 0;
        for (int i = 0; i < crons.size(); i++) {
            ZoneId zone = zones.get(i);
            if (crons.get(i).matches(LocalDateTime.ofInstant(minute, zone))) {
                due++;
                crons.get(i).nextFire(minute, zone).orElseThrow();
            }
        }
        return due;
    }

    private static String randomExpression(Random r) {
        return switch (r.nextInt(10)) {
            case 0 -> "* * * * *";
            case 1 -> "*/" + (2 + r.nextInt(29)) + " * * * *";
            case 2 -> r.nextInt(60) + " * * * *";
            case 3 -> r.nextInt(60) + " " + r.nextInt(24) + " * * *";
            case 4 -> r.nextInt(60) + " " + r.nextInt(24) + " * * MON-FRI";
            case 5 -> "0 " + r.nextInt(24) + " " + (1 + r.nextInt(28)) + " * *";
            case 6 -> "0,15,30,45 9-17 * * 1-5";
            case 7 -> "@hourly";
            case 8 -> r.nextInt(60) + " " + r.nextInt(24) + " 1,15 * 0";
            default -> "*/5 " + r.nextInt(24) + "-23/2 * JAN-DEC *";
        };
    }

    /** Median of 15 timed runs after 5 warm-up runs. */
    private static double medianMillis(Supplier<Integer> run) {
        for (int i = 0; i < 5; i++) {
            run.get();
        }
        double[] ms = new double[15];
        for (int i = 0; i < ms.length; i++) {
            long t0 = System.nanoTime();
            run.get();
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(ms);
        return ms[ms.length / 2];
    }

    private void emptyJobTable() throws Exception {
        try (Connection c = repository.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM scheduler.cron_job");
        }
    }
}
