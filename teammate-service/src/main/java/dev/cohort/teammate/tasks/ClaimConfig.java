package dev.cohort.teammate.tasks;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** Autonomous claiming by idle teammates ({@code cohort.autoclaim.*}, documented in the README). */
@ConfigMapping(prefix = "cohort.autoclaim")
public interface ClaimConfig {

    /** Whether an idle teammate claims the next eligible task on its own; off: only claim_task claims. */
    @WithDefault("true")
    boolean enabled();

    /**
     * The slow fallback poll of an idle teammate: wake-ups are pushed ({@code task_available}), this only covers a
     * lost one (or a lease that expired unobserved). Long, so a team of idle teammates never becomes a herd.
     */
    @WithDefault("30s")
    Duration fallbackPoll();

    /** The fallback poll is spread by ± this fraction, so teammates parked together do not poll together. */
    @WithDefault("0.2")
    double fallbackJitter();

    /** The lease a claim asks for: several heartbeats long, so a slow round does not lose the task. */
    @WithDefault("60s")
    Duration lease();

    /** How often this replica renews the leases of the teammates it hosts (one batched call per team). */
    @WithDefault("15s")
    Duration heartbeatInterval();

    /**
     * Whether the concurrent auto-claims of this replica's teammates of one team are coalesced into one
     * {@code claim-batch} request; off: each teammate makes its own claim-next request.
     */
    @WithDefault("true")
    boolean batch();

    /** The most claims one coalesced request carries (the lead takes at most 200). */
    @WithDefault("50")
    int maxBatch();
}
