package dev.cohort.teammate.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/** teammate-service settings ({@code cohort.teammate.*}); every key is documented in teammate-service/README.md. */
@ConfigMapping(prefix = "cohort.teammate")
public interface TeammateConfig {
    /** lead-service base URL: the task board and protocol requests live there. */
    @WithDefault("http://127.0.0.1:8080")
    String leadUrl();

    /** tool-runner-service base URL, or its replicas' URLs separated by commas: every file and shell operation goes there. */
    @WithDefault("http://127.0.0.1:8083")
    String toolRunnerUrl();

    /** The tool runner's bearer token ({@code COHORT_TOOL_RUNNER_TOKEN}); unset for an open local runner. */
    Optional<String> toolRunnerToken();

    /** How long one tool-runner call may take before it counts as failed (bash runs up to its own timeout). */
    @WithDefault("10m")
    Duration toolRunnerTimeout();

    /**
     * Most model calls of one WORK turn (the seed's 50 rounds): beyond it the turn ends and the lead gets a
     * {@code max_rounds} result. It is the per-turn cap of the teammates' engine (their
     * {@code cohort.engine.max-model-calls-per-turn}).
     */
    @WithDefault("50")
    int workMaxRounds();

    /**
     * How long an idle teammate waits for an inbox item before it shuts down (the seed's 60 s, longer here: a parked
     * teammate costs a row, not a thread). The deadline is set when a turn ends and kept across wake-ups.
     */
    @WithDefault("PT10M")
    Duration idleTimeout();

    /**
     * How long a teammate host trusts the team's permission mode it read from lead-service before it reads it again
     * (the mode is the lead's data; a change reaches the teammates within this time).
     */
    @WithDefault("2s")
    Duration modeRefresh();

    /**
     * How long the workspace skills and {@code .cohort/settings.json} read at a turn start are served to the next turns
     * of the team's teammates on this replica without reading them again. A change made by a tool call of one of them
     * (or a {@code background_done} of the team) is seen by the next turn at once; this bounds how late a change made
     * elsewhere (a person, the lead, another replica) is seen. Past half of it a turn start refreshes them in the
     * background.
     */
    @WithDefault("2s")
    Duration workspaceCacheTtl();

    /**
     * Partitions {@code cohort.teammate.inbox} is created with when it does not exist at start-up (the unit of
     * ownership and failover: a scale step moves whole partitions). An existing topic is used as it is.
     */
    @WithDefault("12")
    int partitions();

    /**
     * This replica's id in {@code teammate_phase}/{@code teammate_spawned} events and as the owner of the agents it
     * hosts ({@code COHORT_INSTANCE_ID}); unset: {@code <hostname>:<http port>}.
     */
    Optional<String> instanceId();
}
