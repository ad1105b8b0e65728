package dev.cohort.scheduler.firing;

import dev.cohort.scheduler.jobs.CronExpression;
import dev.cohort.scheduler.jobs.CronJob;
import dev.cohort.scheduler.jobs.CronJobRepository;
import dev.cohort.scheduler.jobs.InvalidCronException;
import io.quarkus.logging.Log;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fires due jobs exactly once per occurrence, however many replicas run this against the same database.
 *
 * <p>One tick, per batch, in one transaction:
 * <ol>
 * <li>claim due rows with {@code SELECT … FOR UPDATE SKIP LOCKED}: a row another replica is firing is skipped, so
 * each occurrence has one owner; no in-process lock is involved;</li>
 * <li>decide per job with {@link FiringPlan} (on time, missed → {@link MissedPolicy});</li>
 * <li>publish every firing and wait for Kafka's acknowledgements;</li>
 * <li>for each acknowledged firing advance {@code next_fire_at} (conditional on the claimed occurrence) or delete the
 * finished one-shot job — only now, after the acknowledgement; a firing that was not acknowledged leaves its row
 * untouched and is retried on the next tick;</li>
 * <li>commit. A restart at any point before the commit releases the locks and the occurrence is fired again by
 * whichever replica ticks next, with the same message ids ({@link Firing}); after the commit it is never fired again.</li>
 * </ol>
 *
 * <p>A plain class (no CDI) so tests can run several instances, each with its own clock, against one database.
 */
public final class FiringService {

    /** Tuning of a {@link FiringService}; see {@code SchedulerConfig} for the reasons of the defaults. */
    public record Settings(Duration lateTolerance, int batchSize, Duration publishTimeout) {
    }

    /** What one tick did. */
    public record TickResult(int fired, int skipped, int expired, int failed) {
        static final TickResult NONE = new TickResult(0, 0, 0, 0);

        TickResult plus(TickResult o) {
            return new TickResult(fired + o.fired, skipped + o.skipped, expired + o.expired, failed + o.failed);
        }
    }

    /** Parsed expressions are reused across ticks; bounded so a churn of distinct expressions cannot grow it forever. */
    private static final int PARSE_CACHE_LIMIT = 50_000;
    /** A row whose cron or zone no longer parses (edited by hand) is retried this much later, not every tick. */
    private static final Duration BROKEN_ROW_RETRY = Duration.ofHours(1);

    private final String instanceId;
    private final CronJobRepository repository;
    private final InstantSource clock;
    private final FiringPublisher publisher;
    private final Settings settings;
    private final Map<String, CronExpression> parsed = new ConcurrentHashMap<>();

    public FiringService(String instanceId, CronJobRepository repository, InstantSource clock, FiringPublisher publisher,
            Settings settings) {
        this.instanceId = instanceId;
        this.repository = repository;
        this.clock = clock;
        this.publisher = publisher;
        this.settings = settings;
    }

    public String instanceId() {
        return instanceId;
    }

    /** Fires everything due now, batch after batch, until nothing is due or a publish failed. */
    public TickResult tick() {
        TickResult total = TickResult.NONE;
        while (true) {
            Batch batch = fireBatch(clock.instant());
            total = total.plus(batch.result);
            if (batch.claimed < settings.batchSize() || batch.result.failed() > 0) {
                return total;
            }
        }
    }

    private record Batch(int claimed, TickResult result) {
    }

    private record Step(CronJob job, FiringPlan plan, Firing firing, CompletableFuture<Void> ack) {
    }

    private Batch fireBatch(Instant now) {
        try (Connection c = repository.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try {
                List<CronJob> due = repository.lockDue(c, now, settings.batchSize());
                List<Step> steps = new ArrayList<>(due.size());
                for (CronJob job : due) {
                    steps.add(plan(c, job, now));
                }
                int fired = 0;
                int skipped = 0;
                int expired = 0;
                int failed = 0;
                long deadline = System.nanoTime() + settings.publishTimeout().toNanos();
                List<CronJobRepository.Advance> advances = new ArrayList<>(steps.size());
                Map<String, Instant> finished = new LinkedHashMap<>();
                for (Step s : steps) {
                    if (s == null) {
                        continue;
                    }
                    if (s.ack != null && !acknowledged(s, deadline)) {
                        failed++;
                        continue;
                    }
                    CronJob job = s.job;
                    FiringPlan plan = s.plan;
                    if (plan.nextFireAt() != null) {
                        advances.add(new CronJobRepository.Advance(job.id(), job.nextFireAt(), plan.nextFireAt(),
                                plan.fires() ? now : null));
                    } else {
                        finished.put(job.id(), job.nextFireAt());
                    }
                    if (plan.fires()) {
                        fired++;
                        Log.infof("cron fired team=%s job=%s target=%s due=%s catchUp=%s done=%s instance=%s", job.team(),
                                job.id(), job.target(), plan.fireFor(), plan.catchUp(), plan.nextFireAt() == null, instanceId);
                    } else if (plan.nextFireAt() == null) {
                        expired++;
                        Log.infof("cron one-shot expired unfired team=%s job=%s missedSince=%s (missedPolicy=skip)",
                                job.team(), job.id(), plan.missedSince());
                    } else {
                        skipped++;
                        Log.infof("cron skipped missed occurrences team=%s job=%s missedSince=%s next=%s", job.team(),
                                job.id(), plan.missedSince(), plan.nextFireAt());
                    }
                }
                repository.advanceAll(c, advances);
                repository.deleteAllClaimed(c, finished);
                c.commit();
                return new Batch(due.size(), new TickResult(fired, skipped, expired, failed));
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            Log.warnf("cron tick failed instance=%s: %s", instanceId, e.getMessage());
            return new Batch(0, new TickResult(0, 0, 0, 1));
        }
    }

    /** Decides for one claimed job and starts its publish; null when the row is broken (then it is pushed back). */
    private Step plan(Connection c, CronJob job, Instant now) throws SQLException {
        CronExpression cron;
        ZoneId zone;
        try {
            cron = parsed.computeIfAbsent(job.cron(), CronExpression::parse);
            zone = ZoneId.of(job.timezone());
        } catch (InvalidCronException | DateTimeException e) {
            Log.errorf("cron job unusable, retrying in %s team=%s job=%s: %s", BROKEN_ROW_RETRY, job.team(), job.id(),
                    e.getMessage());
            repository.advance(c, job.id(), job.nextFireAt(), now.plus(BROKEN_ROW_RETRY), null);
            return null;
        }
        if (parsed.size() > PARSE_CACHE_LIMIT) {
            parsed.clear();
        }
        FiringPlan plan = FiringPlan.decide(cron, zone, job.recurring(), job.missedPolicy(), job.nextFireAt(), now,
                settings.lateTolerance());
        if (!plan.fires()) {
            return new Step(job, plan, null, null);
        }
        Firing firing = new Firing(job, plan.fireFor(), plan.catchUp(), plan.missedSince(), now);
        CompletableFuture<Void> ack;
        try {
            ack = publisher.publish(firing).toCompletableFuture();
        } catch (RuntimeException e) {
            ack = CompletableFuture.failedFuture(e);
        }
        return new Step(job, plan, firing, ack);
    }

    private boolean acknowledged(Step s, long deadline) {
        try {
            s.ack.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            Log.warnf("cron publish not acknowledged, will retry team=%s job=%s due=%s: %s", s.job.team(), s.job.id(),
                    s.firing.dueAt(), cause.toString());
            return false;
        }
    }
}
