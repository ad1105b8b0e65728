package dev.cohort.lead.config;

import dev.cohort.core.tools.cron.ScheduleCronTool;
import dev.cohort.host.engine.EngineConfig;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/** lead-service settings ({@code cohort.lead.*}). */
@ConfigMapping(prefix = "cohort.lead")
public interface LeadConfig {
    /** Largest prompt text accepted, in characters; larger is 413 (a prompt is instructions, not a data upload). */
    @WithDefault("1000000")
    int maxPromptChars();

    /** How often an SSE stream re-reads the store when no wake-up arrived: the safety net under Kafka wake-ups. */
    @WithDefault("1s")
    Duration ssePollInterval();

    /** Rows fetched per store read when replaying events. */
    @WithDefault("500")
    int sseBatch();

    /**
     * Events per team this replica keeps in memory, as written after their commit, for its SSE streams: a
     * stream that follows the live edge is served from them instead of reading the store twice per event; one
     * further behind (resume, another replica's events, a restart) reads the store. 256 covers a burst of a few turns
     * of a busy team at ~1 KB each; 0 turns the buffer off.
     */
    @WithDefault("256")
    int sseRecent();

    /**
     * How long the lead serves a team's budget overrides from memory (they are checked twice per model call).
     * A change through this replica's API applies at once; one made through another replica (or by hand) applies
     * within this bound. 2 s is a handful of model calls of a busy turn, far below the time a budget change takes to
     * matter, and one primary-key read per 2 s per team costs nothing; 0 reads the table at every check.
     */
    @WithDefault("2s")
    Duration budgetCacheTtl();

    /**
     * tool-runner-service base URL, or its replicas' URLs separated by commas: every file and shell call of the lead
     * goes there.
     */
    @WithDefault("http://127.0.0.1:8083")
    String toolRunnerUrl();

    /** Token of the tool runner's internal API ({@code cohort.tool-runner.token}). */
    Optional<String> toolRunnerToken();

    /** scheduler-service base URL, for the lead's cron tools. */
    @WithDefault("http://127.0.0.1:8082")
    String schedulerUrl();

    /**
     * Whether a cron job the lead's model schedules ({@code schedule_cron}) needs a person's approval: {@code ask} (the
     * default) asks in every permission mode, bypass included, and denies in a turn nobody watches (a cron-fired turn,
     * {@code deny-asks}), because a job runs prompts later with nobody watching and a model that schedules itself
     * in a loop spends tokens without end; {@code allow} creates them without asking (the scheduler's caps on
     * model-created jobs, {@code cohort.scheduler.model-jobs.*}, still apply). Jobs people create are not affected.
     */
    @WithDefault("ask")
    ScheduleCronTool.Approval modelCronJobs();

    /**
     * How long {@code GET /api/v1/teams/{team}/budgets} waits for scheduler-service's cron limits (one attempt): the
     * budgets are answered without them, saying the scheduler is unavailable, rather than after a long wait.
     */
    @WithDefault("3s")
    Duration schedulerLimitsTimeout();

    /**
     * Deprecated alias of {@code cohort.engine.approval-timeout}, which wins when both are set (read only by
     * {@link dev.cohort.host.engine.EngineConfig#toSettings}; its default lives there).
     */
    Optional<Duration> approvalTimeout();

    /**
     * Deprecated alias of {@code cohort.engine.max-model-calls-per-turn}, which wins when both are set (read only by
     * {@link dev.cohort.host.engine.EngineConfig#toSettings}; its default lives there).
     */
    OptionalInt maxModelCallsPerTurn();

    /** Requests to the tool runner can be long-running commands (bash's own timeout is 120 s by default). */
    @WithDefault("10m")
    Duration toolRunnerTimeout();

    /** {@link #maxModelCallsPerTurn()} and {@link #approvalTimeout()} as the engine assembly's deprecated aliases. */
    default EngineConfig.DeprecatedAliases engineAliases() {
        return new EngineConfig.DeprecatedAliases("cohort.lead.", maxModelCallsPerTurn(),
                approvalTimeout());
    }
}
