package dev.cohort.scheduler.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/** Settings of scheduler-service ({@code cohort.scheduler.*}); every default says why it is what it is. */
@ConfigMapping(prefix = "cohort.scheduler")
public interface SchedulerConfig {

    /**
     * How often each replica looks for due jobs. A job must fire within 1 s of its minute, so the poll interval plus
     * one tick must stay well under a second; the query is an index range scan, cheap at 4 per second.
     */
    @WithDefault("250ms")
    Duration pollInterval();

    /**
     * Due jobs claimed (row-locked) per transaction. Bounds how long locks are held while waiting for Kafka
     * acknowledgements, and stays below the emitter's in-flight buffer (256).
     */
    @WithDefault("200")
    int batchSize();

    /** How long a tick waits for Kafka to acknowledge a firing before it gives up and retries on the next tick. */
    @WithDefault("10s")
    Duration publishTimeout();

    /**
     * A firing later than this after its due minute counts as missed (downtime, a stalled replica, Kafka down) and
     * the job's {@code missedPolicy} decides. One minute: anything later is no longer "the job for that minute".
     */
    @WithDefault("60s")
    Duration lateTolerance();

    /** Jobs one team may have. A runaway agent scheduling jobs in a loop must not burn tokens without bound. */
    @WithDefault("100")
    int maxJobsPerTeam();

    /**
     * The shortest allowed time between two firings of a job. 1 minute = cron's own resolution; raise it to stop
     * {@code * * * * *} jobs from burning tokens.
     */
    @WithDefault("1m")
    Duration minInterval();

    /**
     * Tighter limits for jobs an agent schedules ({@code schedule_cron}; {@code createdBy} is an agent of the team):
     * a model that schedules work for itself in a loop spends tokens with nobody watching, so fewer jobs and rarer
     * firings than people may set.
     */
    ModelJobs modelJobs();

    /** {@code cohort.scheduler.model-jobs.*}: limits of the jobs agents create; jobs people create are not counted. */
    interface ModelJobs {
        /**
         * Jobs created by the team's agents that one team may have at once (one-shot jobs count until they fire). Ten
         * covers a lead's standing reports and reminders; more is a loop, not a plan.
         */
        @WithDefault("10")
        int maxPerTeam();

        /**
         * The shortest time between two firings of a recurring job an agent creates: every firing is a model turn with
         * nobody watching, so {@code * * * * *} (1440 turns a day) is refused; 10 minutes still allows a close watch
         * on a build. The general {@code min-interval} applies when it is longer.
         */
        @WithDefault("10m")
        Duration minInterval();
    }

    /** Longest prompt accepted: it becomes a user message of the lead on every firing. */
    @WithDefault("8000")
    int maxPromptLength();

    /**
     * Ask lead-service whether a team exists before creating a job for it (the scheduler does not own teams). Off in
     * a setup without lead-service.
     */
    @WithDefault("true")
    boolean validateTeams();

    /** How long a "team exists" answer from lead-service is reused; teams are rarely deleted. */
    @WithDefault("60s")
    Duration teamCacheTtl();

    /** Timeout of the team lookup on lead-service. */
    @WithDefault("5s")
    Duration teamLookupTimeout();

    /** How often a replica records that it is alive (owners of non-durable jobs). */
    @WithDefault("5s")
    Duration heartbeatInterval();

    /**
     * A replica silent for this long is considered gone, and its non-durable jobs are deleted: they live only as long
     * as the replica that created them. Three missed heartbeats.
     */
    @WithDefault("15s")
    Duration instanceLease();

    /**
     * How long the first answer to a keyed create or cancel ({@code Idempotency-Key}) is kept for its retries. A
     * retry comes from a client's own retry loop (seconds) or a lead's resumed turn (minutes after a crash); a week
     * covers a replica left down over a weekend, and one small row per call costs little.
     */
    @WithDefault("7d")
    Duration idempotencyRetention();

    /** Whether this replica fires jobs (an API-only replica sets false). */
    @WithDefault("true")
    boolean firingEnabled();

    /** This replica's id (owner of its non-durable jobs); default: host name plus a random suffix. */
    Optional<String> instanceId();
}
