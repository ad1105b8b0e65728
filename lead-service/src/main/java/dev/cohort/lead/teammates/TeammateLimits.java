package dev.cohort.lead.teammates;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * The lead's limits on teammates ({@code cohort.teammate.*}, contract §7), checked by {@code spawn_teammate} against
 * the roster. teammate-service reads its own settings; these two keys are the lead's.
 */
@ConfigMapping(prefix = "cohort.teammate")
public interface TeammateLimits {

    /** The key of {@link #maxPerTeam()}, as a refusal names it. */
    String MAX_PER_TEAM = "cohort.teammate.max-per-team";
    /** The key of {@link #maxLivePerTeam()}, as a refusal names it. */
    String MAX_LIVE_PER_TEAM = "cohort.teammate.max-live-per-team";

    /**
     * Teammates ever recorded in a team, shut-down ones included (restarting one does not count twice): each keeps a
     * conversation and an inbox in teammate-service, and the lead's context lists them. 8 is a team a lead can
     * coordinate.
     */
    @WithDefault("8")
    int maxPerTeam();

    /**
     * Teammates of a team not shut down: each may run turns at once, on the model provider's rate limit the team
     * shares. 8 keeps one team from taking a replica's turn slots.
     */
    @WithDefault("8")
    int maxLivePerTeam();

    /** Plain values, for tests and for building the spawn tool. */
    record Values(int maxPerTeam, int maxLivePerTeam) {
    }

    default Values values() {
        return new Values(maxPerTeam(), maxLivePerTeam());
    }
}
