package dev.cohort.lead.tasks;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** Task board settings ({@code cohort.tasks.*}); every limit keeps one model or one teammate from flooding the board. */
@ConfigMapping(prefix = "cohort.tasks")
public interface TaskConfig {

    /** Longest subject: a subject is a one-line title shown on every board listing. */
    @WithDefault("200")
    int maxSubjectChars();

    /** Longest description: enough for a detailed work order, small enough to list and inject into a prompt. */
    @WithDefault("8000")
    int maxDescriptionChars();

    /** Longest completion result a teammate may attach. */
    @WithDefault("8000")
    int maxResultChars();

    /** Most dependencies of one task: more is a sign the plan should be split, and it bounds the claim check. */
    @WithDefault("32")
    int maxBlockedBy();

    /** Most tasks on one team's board: bounds what list_tasks shows the model and what claim-next scans. */
    @WithDefault("10000")
    int maxTasksPerTeam();

    /** Lease of a teammate's claim when the request names none: long enough for several heartbeats to be missed. */
    @WithDefault("5m")
    Duration defaultLease();

    /** Shortest lease a client may ask for: below this a heartbeat round trip could not keep up. */
    @WithDefault("1s")
    Duration minLease();

    /** Longest lease: a dead teammate's task must come back within this time. */
    @WithDefault("1h")
    Duration maxLease();

    /** Longest lease token accepted from a client (a UUID fits easily). */
    @WithDefault("100")
    int maxLeaseTokenChars();
}
