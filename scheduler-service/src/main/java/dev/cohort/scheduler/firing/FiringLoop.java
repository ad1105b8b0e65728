package dev.cohort.scheduler.firing;

import dev.cohort.scheduler.config.SchedulerConfig;
import dev.cohort.scheduler.jobs.CronJobRepository;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.logging.Log;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/**
 * This replica's scheduler thread. Each round: fire what is due ({@link FiringService#tick()}), refresh this replica's
 * heartbeat and purge the non-durable jobs of replicas that went silent, then sleep until the next poll or the next
 * minute boundary, whichever comes first (so a job fires a few milliseconds after its minute starts). Every error is
 * caught and logged; the thread never dies silently.
 */
@ApplicationScoped
public class FiringLoop {

    /** Woken this long after a minute boundary, so the boundary has certainly passed on this clock. */
    private static final long BOUNDARY_MARGIN_MS = 5;

    @Inject
    SchedulerConfig config;
    @Inject
    CronJobRepository repository;
    @Inject
    InstantSource clock;
    @Inject
    FiringPublisher publisher;
    @Inject
    @Named("schedulerInstanceId")
    String instanceId;
    @Inject
    MeterRegistry registry;

    private FiringService firing;
    private Thread thread;
    private volatile boolean running;
    /** Real time (not the clock): a clock set backwards in tests must not stop the heartbeat. */
    private long nextHeartbeatNanos = System.nanoTime();
    private Counter fired;
    private Counter skipped;
    private Counter expired;
    private Counter failed;
    private Timer tickTimer;

    void start(@Observes StartupEvent ev) {
        firing = new FiringService(instanceId, repository, clock, publisher,
                new FiringService.Settings(config.lateTolerance(), config.batchSize(), config.publishTimeout()));
        fired = registry.counter("cohort.scheduler.firings", "outcome", "fired");
        skipped = registry.counter("cohort.scheduler.firings", "outcome", "skipped");
        expired = registry.counter("cohort.scheduler.firings", "outcome", "expired");
        failed = registry.counter("cohort.scheduler.firings", "outcome", "failed");
        tickTimer = registry.timer("cohort.scheduler.tick");
        repository.heartbeat(instanceId, clock.instant());
        running = true;
        thread = new Thread(this::run, "cron-firing");
        thread.setDaemon(true);
        thread.start();
        Log.infof("cron scheduler started instance=%s firing=%s poll=%s", instanceId, config.firingEnabled(),
                config.pollInterval());
    }

    void stop(@Observes ShutdownEvent ev) {
        running = false;
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            int n = repository.removeInstance(instanceId);
            Log.infof("cron scheduler stopped instance=%s; %d non-durable job(s) ended with it", instanceId, n);
        } catch (RuntimeException e) {
            Log.warnf("cron scheduler stop instance=%s: %s", instanceId, e.getMessage());
        }
    }

    /** The firing service of this replica (tests use its instance id). */
    public FiringService firingService() {
        return firing;
    }

    private void run() {
        while (running) {
            try {
                if (config.firingEnabled()) {
                    long t0 = System.nanoTime();
                    FiringService.TickResult r = firing.tick();
                    tickTimer.record(Duration.ofNanos(System.nanoTime() - t0));
                    fired.increment(r.fired());
                    skipped.increment(r.skipped());
                    expired.increment(r.expired());
                    failed.increment(r.failed());
                }
                housekeeping();
            } catch (RuntimeException e) {
                Log.errorf(e, "cron scheduler round failed instance=%s; continuing", instanceId);
            }
            try {
                Thread.sleep(sleepMillis());
            } catch (InterruptedException e) {
                if (!running) {
                    return;
                }
            }
        }
    }

    private void housekeeping() {
        if (System.nanoTime() - nextHeartbeatNanos < 0) {
            return;
        }
        Instant now = clock.instant();
        repository.heartbeat(instanceId, now);
        int purged = repository.purgeOrphanedSessionJobs(instanceId, now.minus(config.instanceLease()));
        if (purged > 0) {
            Log.infof("cron purged %d non-durable job(s) of stopped scheduler replicas", purged);
        }
        int forgotten = repository.purgeIdempotencyKeys(now.minus(config.idempotencyRetention()));
        if (forgotten > 0) {
            Log.debugf("cron forgot %d idempotency key(s) older than %s", forgotten, config.idempotencyRetention());
        }
        nextHeartbeatNanos = System.nanoTime() + config.heartbeatInterval().toNanos();
    }

    private long sleepMillis() {
        long poll = config.pollInterval().toMillis();
        long toBoundary = 60_000 - Math.floorMod(clock.millis(), 60_000L) + BOUNDARY_MARGIN_MS;
        return Math.max(1, Math.min(poll, toBoundary));
    }
}
