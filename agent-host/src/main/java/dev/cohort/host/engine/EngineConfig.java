package dev.cohort.host.engine;

import dev.cohort.core.http.ServiceClient;
import dev.cohort.core.engine.Budgets;
import dev.cohort.core.engine.CompactionSettings;
import dev.cohort.core.engine.EngineSettings;
import dev.cohort.core.engine.RecoverySettings;
import dev.cohort.core.memory.MemorySettings;
import dev.cohort.core.toolrunner.ToolRunnerClient;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * The agent engine's tunables ({@code cohort.engine.*}): the values of {@link EngineSettings},
 * {@link CompactionSettings}, {@link RecoverySettings}, {@link Budgets} and {@link MemorySettings}, whose Javadoc
 * gives each default's reason. Every default here is the record's own default (a test compares them), so an empty
 * configuration runs the engine exactly as {@code EngineSettings.defaults()}. {@link #toSettings} and
 * {@link #toMemorySettings} turn it into those records and refuse an invalid value with the property's name;
 * {@link EngineConfigCheck} does that at start-up. The model and the fallback model are not here: they come from
 * {@code cohort.llm.model} / {@code cohort.llm.fallback-model}, the models the gateway has clients for.
 *
 * <p>Two groups are the host's rather than the engine's records: {@code memory.extraction-concurrency} /
 * {@code memory.extraction-queue} bound the background memory work ({@link #toMemoryWork}, {@link BoundedExecutor}),
 * and {@code tool-runner-retry.*} is the tool runner client's {@link ServiceClient.Retry} (default
 * {@link ServiceClient.Retry#DEFAULT}). Both services read the same keys, each with its own values.
 */
@ConfigMapping(prefix = "cohort.engine")
public interface EngineConfig {

    /**
     * Model calls per turn, at least 2 (last-step notice at max−1). Absent: the service's deprecated alias (the lead's
     * {@code cohort.lead.max-model-calls-per-turn}, see {@link DeprecatedAliases}), else 50.
     */
    OptionalInt maxModelCallsPerTurn();

    /** A subagent's cap on model calls (the seed's 30). */
    @WithDefault("30")
    int subagentMaxModelCalls();

    /** Times Stop hooks may force a turn to continue (unbounded in the seed). */
    @WithDefault("3")
    int maxStopContinuations();

    /** Tool rounds without {@code todo_write} before a reminder (the seed's 3). */
    @WithDefault("3")
    int todoReminderRounds();

    /** Repetitions of the same call before the stuck notice (3: twice can be a legitimate retry). */
    @WithDefault("3")
    int stuckNoticeAt();

    /** Repetitions that end the turn (5: two more chances after the notice). */
    @WithDefault("5")
    int stuckEndAt();

    /** Output limit per model call (the seed's 8000); 0 = the provider's default. */
    @WithDefault("8000")
    int maxOutputTokens();

    /**
     * How long a call waits for a human before it is denied. Absent: the service's deprecated alias (the lead's
     * {@code cohort.lead.approval-timeout}), else 10 min.
     */
    Optional<Duration> approvalTimeout();

    /** Characters of a tool result in {@code tool_call_finished} events (300 fits a terminal line or two). */
    @WithDefault("300")
    int previewChars();

    /** Token and cost budgets, 0 = unlimited ({@link Budgets#defaults()}). */
    BudgetConfig budgets();

    /** USD per million tokens, per model name ({@code cohort.engine.prices."gpt-4o".input-per-million}). */
    Map<String, PriceConfig> prices();

    /** Context window and output limit per model name ({@code cohort.engine.models."gpt-4o".context-window}). */
    Map<String, ModelConfig> models();

    /** Context compaction. */
    CompactionConfig compaction();

    /** Error recovery. */
    RecoveryConfig recovery();

    /** Memory selection, extraction and consolidation. */
    MemoryConfig memory();

    /** How the host's tool runner client retries a busy (503) or restarting runner. */
    ToolRunnerRetryConfig toolRunnerRetry();

    /** The teams' MCP servers. */
    McpConfig mcp();

    /**
     * {@code cohort.engine.mcp.*}: the tools of the MCP servers a team configures (the lead's {@code PUT …/mcp}, the
     * workspace's {@code .cohort/settings.json}), listed and called through the tool runner that runs the workspace
     * tools, so a local server runs in the team's sandbox.
     */
    interface McpConfig {
        /**
         * Whether agents get their team's MCP servers' tools (true: a team without servers costs nothing, and one with
         * servers configured them to be used); false: none, whatever the teams configure, e.g. where the tool runner
         * does not serve MCP.
         */
        @WithDefault("true")
        boolean enabled();
    }

    /**
     * {@code cohort.engine.budgets.*}: 0 = unlimited, the default of each (a limit is the operator's choice) but the
     * team's tokens per day ({@link Budgets#defaults()}).
     */
    interface BudgetConfig {
        /** Tokens (input + output) of one turn, its subagents included. */
        @WithDefault("0")
        long tokensPerTurn();

        /** Tokens over an agent's life. */
        @WithDefault("0")
        long tokensPerAgent();

        /** Tokens of all the team's agents together (their saved usage). */
        @WithDefault("0")
        long tokensPerTeam();

        /** USD of one turn, at {@code cohort.engine.prices} (no price: never reached). */
        @WithDefault("0")
        double costPerTurnUsd();

        /** USD over an agent's life. */
        @WithDefault("0")
        double costPerAgentUsd();

        /** USD of all the team's agents together. */
        @WithDefault("0")
        double costPerTeamUsd();

        /**
         * Tokens of all the team's agents within the current UTC day (the lead's usage ledger from 00:00 UTC). Not 0
         * like the others: a fresh team whose agents run unattended (cron jobs, a looping model) must not spend without
         * bound; see {@link Budgets#DEFAULT_TOKENS_PER_TEAM_PER_DAY} for the value's reason. 0 = unlimited.
         */
        @WithDefault("5000000")
        long tokensPerTeamPerDay();

        /** USD of all the team's agents within the current UTC day. */
        @WithDefault("0")
        double costPerTeamPerDayUsd();
    }

    /**
     * The price of one model; it replaces the built-in table's price of that model
     * ({@link dev.cohort.core.engine.ModelPrices}) as a whole.
     */
    interface PriceConfig {
        /** USD per million prompt tokens (neither read from nor written to the provider's cache). */
        @WithDefault("0")
        double inputPerMillion();

        /** USD per million completion tokens. */
        @WithDefault("0")
        double outputPerMillion();

        /** USD per million prompt tokens read from the provider's cache; absent = the input price. */
        Optional<Double> cachedInputPerMillion();

        /** {@link #cachedInputPerMillion} under a name like {@link #cacheWritePerMillion}'s; set one of the two. */
        Optional<Double> cacheReadPerMillion();

        /** USD per million prompt tokens written to the provider's cache; absent = the input price. */
        Optional<Double> cacheWritePerMillion();
    }

    /** The size of one model; an absent value is the compaction's default. */
    interface ModelConfig {
        /** Tokens of prompt + output the model accepts. */
        OptionalInt contextWindow();

        /** The largest output limit it accepts (caps the output-limit escalation). */
        OptionalInt maxOutputTokens();

        /** This model's L3 (summary) threshold; unset = {@code compaction.auto-compact-ratio}. */
        OptionalDouble autoCompactRatio();

        /** This model's L2 threshold; unset = {@code compaction.micro-compact-ratio}. */
        OptionalDouble microCompactRatio();
    }

    /** {@code cohort.engine.compaction.*}: see {@link CompactionSettings} for each reason. */
    interface CompactionConfig {
        /** Window of a model not listed under {@code cohort.engine.models} (128k: common current size). */
        @WithDefault("128000")
        int defaultContextWindow();

        /** Output limit of a model not listed (16k). */
        @WithDefault("16384")
        int defaultMaxOutputTokens();

        /** L3 (summary) above this share of window − output (0.8 leaves room for the next results). */
        @WithDefault("0.8")
        double autoCompactRatio();

        /** L2 (old tool results shortened) above this share (0.5: below it the prompt cache keeps hitting). */
        @WithDefault("0.5")
        double microCompactRatio();

        /** L0: a tool result above this many tokens is stored in full and replaced by a preview. */
        @WithDefault("8000")
        int maxToolResultTokens();

        /** L0 preview: head characters kept (plus a quarter of that from the tail). */
        @WithDefault("2000")
        int previewChars();

        /** L1: above this many messages the middle is snipped. */
        @WithDefault("600")
        int snipMaxMessages();

        /** L1: messages kept at the head (the original task). */
        @WithDefault("4")
        int snipKeepHead();

        /** L1: messages kept at the tail. */
        @WithDefault("300")
        int snipKeepTail();

        /** L2/L3: the last N assistant turns are kept verbatim. */
        @WithDefault("3")
        int keepRecentTurns();

        /** L2: results shorter than this many tokens are kept. */
        @WithDefault("200")
        int microCompactMinTokens();

        /** L3: share of the window given to the summariser. */
        @WithDefault("0.5")
        double summaryInputRatio();

        /** L3: the verbatim tail is cut to this share of the window. */
        @WithDefault("0.2")
        double summaryTailRatio();

        /** L3: the summary's output limit. */
        @WithDefault("4000")
        int summaryMaxTokens();
    }

    /** {@code cohort.engine.recovery.*}: see {@link RecoverySettings} for each reason. */
    interface RecoveryConfig {
        /** Attempts per model call, the first included (the seed's 10). */
        @WithDefault("10")
        int maxAttempts();

        /** First backoff, doubled per attempt (the seed's 500 ms). */
        @WithDefault("500ms")
        Duration baseDelay();

        /** Backoff cap (the seed's 32 s). */
        @WithDefault("32s")
        Duration maxDelay();

        /** Cap on a server's Retry-After (5 min: a broken header must not park an agent for hours). */
        @WithDefault("5m")
        Duration maxRetryAfter();

        /** Jitter as a fraction of the delay (the seed's 0.25). */
        @WithDefault("0.25")
        double jitterRatio();

        /** Consecutive overloads (529/503) before switching to {@code cohort.llm.fallback-model} (the seed's 3). */
        @WithDefault("3")
        int overloadsBeforeFallback();

        /** Raised output limit after a {@code length} finish (the seed's 64000), capped by the model's maximum. */
        @WithDefault("64000")
        int escalatedMaxOutputTokens();

        /** Continuation prompts after a truncated answer (the seed's 3). */
        @WithDefault("3")
        int maxContinuations();

        /** Replies with cut-off tool calls answered with placeholders before the turn ends (2). */
        @WithDefault("2")
        int maxTruncatedToolRounds();
    }

    /** {@code cohort.engine.memory.*}: see {@link MemorySettings} for each reason. */
    interface MemoryConfig {
        /** Memories injected per user message (the seed's 5). */
        @WithDefault("5")
        int maxSelected();

        /** Cap on the injected bodies (8000 ≈ 2000 tokens). */
        @WithDefault("8000")
        int maxInjectedChars();

        /** Cap on the index in the system prompt. */
        @WithDefault("6000")
        int maxIndexChars();

        /** User text given to the selector, newest kept (the seed's 2000). */
        @WithDefault("2000")
        int recentChars();

        /** Turn text given to the extractor, newest first. */
        @WithDefault("6000")
        int extractionInputChars();

        /** Consolidation runs above this many memories (hysteresis). */
        @WithDefault("30")
        int consolidateAbove();

        /** … and asks for at most this many. */
        @WithDefault("20")
        int consolidateTarget();

        /** Catalogue given to the consolidator; memories beyond it are kept untouched. */
        @WithDefault("32000")
        int consolidationInputChars();

        /** Output limit of the selection call. */
        @WithDefault("200")
        int selectMaxTokens();

        /** Output limit of the extraction call. */
        @WithDefault("1500")
        int extractMaxTokens();

        /** Output limit of the consolidation call. */
        @WithDefault("6000")
        int consolidateMaxTokens();

        /** Attempts of a background memory call on transient failures. */
        @WithDefault("3")
        int attempts();

        /**
         * The host's, not {@link MemorySettings}': extractions (each followed by a consolidation when due) running at
         * once on a replica. Each is one or two model calls sharing the provider's rate limit with the turns, so a
         * few (4) keep memory from crowding out the turns it serves.
         */
        @WithDefault("4")
        int extractionConcurrency();

        /**
         * The host's: extractions waiting for a running one to end; beyond that an ended turn's extraction is dropped
         * with a warning (the turn never waits for memory). Each waiting one holds its turn's messages, so the queue
         * is bounded: 64, the lead's default of running turns, absorbs every turn of a replica ending at once.
         */
        @WithDefault("64")
        int extractionQueue();
    }

    /**
     * {@code cohort.engine.tool-runner-retry.*}: a call to the tool runner that got a 503 (every slot busy) or no
     * answer (a restart) is retried with capped exponential backoff and jitter, honouring {@code Retry-After}, until
     * the budget is spent; only then does the turn end. The defaults are {@link ServiceClient.Retry#DEFAULT}, whose
     * Javadoc gives each reason.
     */
    interface ToolRunnerRetryConfig {
        /** The first backoff delay (200 ms: a busy slot usually frees within a tool call's time). */
        @WithDefault("200ms")
        Duration firstDelay();

        /** The cap of one delay (5 s: a waiting turn notices a recovered runner soon). */
        @WithDefault("5s")
        Duration maxDelay();

        /** Total time after which no retry starts (30 s: rides over a runner restart on a loaded machine). */
        @WithDefault("30s")
        Duration budget();

        /** Jitter as a fraction of the delay (0.25: agents do not retry in lockstep). */
        @WithDefault("0.25")
        double jitterRatio();

        /**
         * How long the first turn of a service waits for the tool runner's catalogue of workspace tools before it
         * fails (3 min: the runner may start after the service, e.g. in a cluster's first roll-out).
         */
        @WithDefault("3m")
        Duration catalogueWait();
    }

    /**
     * A service's deprecated keys for two engine settings, read only when the {@code cohort.engine.*} key is unset.
     * The lead keeps {@code cohort.lead.max-model-calls-per-turn} and {@code cohort.lead.approval-timeout} (declared in
     * its own mapping) and produces a bean of this type; {@link EngineAssembly} and {@link EngineConfigCheck} use it
     * when there is one, {@link #NONE} otherwise.
     *
     * @param prefix                the aliases' prefix, e.g. {@code cohort.lead.}: errors and warnings name the key
     * @param maxModelCallsPerTurn  {@code <prefix>max-model-calls-per-turn}
     * @param approvalTimeout       {@code <prefix>approval-timeout}
     */
    record DeprecatedAliases(String prefix, OptionalInt maxModelCallsPerTurn, Optional<Duration> approvalTimeout) {
        /** No aliases. */
        public static final DeprecatedAliases NONE = new DeprecatedAliases("", OptionalInt.empty(), Optional.empty());

        public DeprecatedAliases {
            Objects.requireNonNull(prefix, "prefix");
            Objects.requireNonNull(maxModelCallsPerTurn, "maxModelCallsPerTurn");
            Objects.requireNonNull(approvalTimeout, "approvalTimeout");
        }
    }

    String PREFIX = "cohort.engine.";

    /** The engine's settings without deprecated aliases: {@link #toSettings(EngineConfig, DeprecatedAliases)}. */
    static EngineSettings toSettings(EngineConfig c) {
        return toSettings(c, DeprecatedAliases.NONE);
    }

    /**
     * The engine's settings (model and fallback model unset: the gateway sets them). {@code cohort.engine.*} wins over
     * the service's deprecated {@code legacy} aliases.
     *
     * @throws IllegalArgumentException naming every invalid property and its value
     */
    static EngineSettings toSettings(EngineConfig c, DeprecatedAliases legacy) {
        EngineSettings d = EngineSettings.defaults();
        Errors e = new Errors();
        DeprecatedAliases l = legacy == null ? DeprecatedAliases.NONE : legacy;
        boolean callsAlias = c.maxModelCallsPerTurn().isEmpty() && l.maxModelCallsPerTurn().isPresent();
        int maxCalls = c.maxModelCallsPerTurn().isPresent() ? c.maxModelCallsPerTurn().getAsInt()
                : callsAlias ? l.maxModelCallsPerTurn().getAsInt() : d.maxModelCallsPerTurn();
        String callsKey = callsAlias ? l.prefix() + "max-model-calls-per-turn" : PREFIX + "max-model-calls-per-turn";
        e.atLeast(callsKey, maxCalls, 2);
        boolean approvalAlias = c.approvalTimeout().isEmpty() && l.approvalTimeout().isPresent();
        Duration approval = c.approvalTimeout().or(l::approvalTimeout).orElse(d.approvalTimeout());
        String approvalKey = approvalAlias ? l.prefix() + "approval-timeout" : PREFIX + "approval-timeout";
        e.positive(approvalKey, approval);
        e.atLeast(PREFIX + "subagent-max-model-calls", c.subagentMaxModelCalls(), 1);
        e.atLeast(PREFIX + "max-stop-continuations", c.maxStopContinuations(), 0);
        e.atLeast(PREFIX + "todo-reminder-rounds", c.todoReminderRounds(), 1);
        e.atLeast(PREFIX + "stuck-notice-at", c.stuckNoticeAt(), 1);
        e.atLeast(PREFIX + "stuck-end-at", c.stuckEndAt(), c.stuckNoticeAt());
        e.atLeast(PREFIX + "max-output-tokens", c.maxOutputTokens(), 0);
        e.atLeast(PREFIX + "preview-chars", c.previewChars(), 0);

        BudgetConfig b = c.budgets();
        e.atLeast(PREFIX + "budgets.tokens-per-turn", b.tokensPerTurn(), 0);
        e.atLeast(PREFIX + "budgets.tokens-per-agent", b.tokensPerAgent(), 0);
        e.atLeast(PREFIX + "budgets.tokens-per-team", b.tokensPerTeam(), 0);
        e.nonNegative(PREFIX + "budgets.cost-per-turn-usd", b.costPerTurnUsd());
        e.nonNegative(PREFIX + "budgets.cost-per-agent-usd", b.costPerAgentUsd());
        e.nonNegative(PREFIX + "budgets.cost-per-team-usd", b.costPerTeamUsd());
        e.atLeast(PREFIX + "budgets.tokens-per-team-per-day", b.tokensPerTeamPerDay(), 0);
        e.nonNegative(PREFIX + "budgets.cost-per-team-per-day-usd", b.costPerTeamPerDayUsd());

        Map<String, EngineSettings.ModelPrice> prices = new LinkedHashMap<>();
        c.prices().forEach((model, p) -> {
            String key = PREFIX + "prices.\"" + model + "\".";
            e.nonNegative(key + "input-per-million", p.inputPerMillion());
            e.nonNegative(key + "output-per-million", p.outputPerMillion());
            p.cachedInputPerMillion().ifPresent(v -> e.nonNegative(key + "cached-input-per-million", v));
            p.cacheReadPerMillion().ifPresent(v -> e.nonNegative(key + "cache-read-per-million", v));
            p.cacheWritePerMillion().ifPresent(v -> e.nonNegative(key + "cache-write-per-million", v));
            if (p.cachedInputPerMillion().isPresent() && p.cacheReadPerMillion().isPresent()
                    && !p.cachedInputPerMillion().equals(p.cacheReadPerMillion())) {
                e.add(key + "cache-read-per-million", p.cacheReadPerMillion().get(),
                        "disagrees with " + key + "cached-input-per-million (one price, two names): set one of them");
            }
            double read = p.cacheReadPerMillion().or(p::cachedInputPerMillion).orElse(p.inputPerMillion());
            double write = p.cacheWritePerMillion().orElse(p.inputPerMillion());
            prices.put(model, new EngineSettings.ModelPrice(p.inputPerMillion(), p.outputPerMillion(), read, write));
        });

        CompactionConfig k = c.compaction();
        String kp = PREFIX + "compaction.";
        CompactionSettings.ModelLimits defaults = e.limits(kp + "default-context-window", k.defaultContextWindow(),
                kp + "default-max-output-tokens", k.defaultMaxOutputTokens());
        Map<String, CompactionSettings.ModelLimits> models = new LinkedHashMap<>();
        c.models().forEach((model, m) -> {
            String key = PREFIX + "models.\"" + model + "\".";
            CompactionSettings.ModelLimits size = e.limits(key + "context-window",
                    m.contextWindow().orElse(k.defaultContextWindow()), key + "max-output-tokens",
                    m.maxOutputTokens().orElse(k.defaultMaxOutputTokens()));
            m.autoCompactRatio().ifPresent(r -> e.ratio(key + "auto-compact-ratio", r));
            m.microCompactRatio().ifPresent(r -> e.ratio(key + "micro-compact-ratio", r));
            models.put(model, new CompactionSettings.ModelLimits(size.contextWindow(), size.maxOutputTokens(),
                    m.autoCompactRatio().isPresent() ? m.autoCompactRatio().getAsDouble() : null,
                    m.microCompactRatio().isPresent() ? m.microCompactRatio().getAsDouble() : null));
        });
        e.ratio(kp + "auto-compact-ratio", k.autoCompactRatio());
        e.ratio(kp + "micro-compact-ratio", k.microCompactRatio());
        e.ratio(kp + "summary-input-ratio", k.summaryInputRatio());
        e.ratio(kp + "summary-tail-ratio", k.summaryTailRatio());
        e.atLeast(kp + "max-tool-result-tokens", k.maxToolResultTokens(), 1);
        e.atLeast(kp + "preview-chars", k.previewChars(), 1);
        e.atLeast(kp + "snip-keep-head", k.snipKeepHead(), 1);
        e.atLeast(kp + "snip-keep-tail", k.snipKeepTail(), 1);
        if (k.snipKeepHead() + k.snipKeepTail() >= k.snipMaxMessages()) {
            e.add(kp + "snip-max-messages", k.snipMaxMessages(), "must be above " + kp + "snip-keep-head + "
                    + kp + "snip-keep-tail (" + (k.snipKeepHead() + k.snipKeepTail()) + ")");
        }
        e.atLeast(kp + "keep-recent-turns", k.keepRecentTurns(), 0);
        e.atLeast(kp + "micro-compact-min-tokens", k.microCompactMinTokens(), 0);
        e.atLeast(kp + "summary-max-tokens", k.summaryMaxTokens(), 1);

        RecoveryConfig r = c.recovery();
        String rp = PREFIX + "recovery.";
        e.atLeast(rp + "max-attempts", r.maxAttempts(), 1);
        e.notNegative(rp + "base-delay", r.baseDelay());
        e.notNegative(rp + "max-delay", r.maxDelay());
        if (r.maxDelay().compareTo(r.baseDelay()) < 0) {
            e.add(rp + "max-delay", r.maxDelay(), "must not be below " + rp + "base-delay (" + r.baseDelay() + ")");
        }
        e.notNegative(rp + "max-retry-after", r.maxRetryAfter());
        if (!(r.jitterRatio() >= 0 && r.jitterRatio() <= 1)) {
            e.add(rp + "jitter-ratio", r.jitterRatio(), "must be between 0 and 1");
        }
        e.atLeast(rp + "overloads-before-fallback", r.overloadsBeforeFallback(), 1);
        e.atLeast(rp + "escalated-max-output-tokens", r.escalatedMaxOutputTokens(), 1);
        e.atLeast(rp + "max-continuations", r.maxContinuations(), 0);
        e.atLeast(rp + "max-truncated-tool-rounds", r.maxTruncatedToolRounds(), 0);
        e.throwIfAny();

        return new EngineSettings(maxCalls, c.subagentMaxModelCalls(), c.maxStopContinuations(), c.todoReminderRounds(),
                c.stuckNoticeAt(), c.stuckEndAt(), c.maxOutputTokens() == 0 ? null : c.maxOutputTokens(), null, approval,
                b.tokensPerTurn(), b.tokensPerAgent(), prices, c.previewChars(),
                new RecoverySettings(r.maxAttempts(), r.baseDelay(), r.maxDelay(), r.maxRetryAfter(), r.jitterRatio(),
                        r.overloadsBeforeFallback(), null, r.escalatedMaxOutputTokens(), r.maxContinuations(),
                        r.maxTruncatedToolRounds()),
                new CompactionSettings(defaults, models, k.autoCompactRatio(), k.microCompactRatio(),
                        k.maxToolResultTokens(), k.previewChars(), k.snipMaxMessages(), k.snipKeepHead(),
                        k.snipKeepTail(), k.keepRecentTurns(), k.microCompactMinTokens(), k.summaryInputRatio(),
                        k.summaryTailRatio(), k.summaryMaxTokens()),
                new Budgets(b.tokensPerTurn(), b.tokensPerAgent(), b.tokensPerTeam(), b.costPerTurnUsd(),
                        b.costPerAgentUsd(), b.costPerTeamUsd(), b.tokensPerTeamPerDay(), b.costPerTeamPerDayUsd()));
    }

    /**
     * The memory manager's settings.
     *
     * @throws IllegalArgumentException naming every invalid property and its value
     */
    static MemorySettings toMemorySettings(EngineConfig c) {
        MemoryConfig m = c.memory();
        String mp = PREFIX + "memory.";
        Errors e = new Errors();
        e.atLeast(mp + "max-selected", m.maxSelected(), 0);
        e.atLeast(mp + "max-injected-chars", m.maxInjectedChars(), 0);
        e.atLeast(mp + "max-index-chars", m.maxIndexChars(), 0);
        e.atLeast(mp + "recent-chars", m.recentChars(), 1);
        e.atLeast(mp + "extraction-input-chars", m.extractionInputChars(), 1);
        e.atLeast(mp + "consolidate-target", m.consolidateTarget(), 1);
        e.atLeast(mp + "consolidate-above", m.consolidateAbove(), m.consolidateTarget());
        e.atLeast(mp + "consolidation-input-chars", m.consolidationInputChars(), 1);
        e.atLeast(mp + "select-max-tokens", m.selectMaxTokens(), 1);
        e.atLeast(mp + "extract-max-tokens", m.extractMaxTokens(), 1);
        e.atLeast(mp + "consolidate-max-tokens", m.consolidateMaxTokens(), 1);
        e.atLeast(mp + "attempts", m.attempts(), 1);
        e.throwIfAny();
        return new MemorySettings(m.maxSelected(), m.maxInjectedChars(), m.maxIndexChars(), m.recentChars(),
                m.extractionInputChars(), m.consolidateAbove(), m.consolidateTarget(), m.consolidationInputChars(),
                m.selectMaxTokens(), m.extractMaxTokens(), m.consolidateMaxTokens(), m.attempts());
    }

    /**
     * The bounds of the background memory work ({@code memory.extraction-concurrency} ≥ 1,
     * {@code memory.extraction-queue} ≥ 0).
     *
     * @throws IllegalArgumentException naming every invalid property and its value
     */
    static BoundedExecutor.Limits toMemoryWork(EngineConfig c) {
        MemoryConfig m = c.memory();
        String mp = PREFIX + "memory.";
        Errors e = new Errors();
        e.atLeast(mp + "extraction-concurrency", m.extractionConcurrency(), 1);
        e.atLeast(mp + "extraction-queue", m.extractionQueue(), 0);
        e.throwIfAny();
        return new BoundedExecutor.Limits(m.extractionConcurrency(), m.extractionQueue(),
                mp + "extraction-concurrency", mp + "extraction-queue");
    }

    /**
     * The tool runner client's retry policy.
     *
     * @throws IllegalArgumentException naming every invalid property and its value
     */
    static ServiceClient.Retry toToolRunnerRetry(EngineConfig c) {
        ToolRunnerRetryConfig r = c.toolRunnerRetry();
        String tp = PREFIX + "tool-runner-retry.";
        Errors e = new Errors();
        e.notNegative(tp + "first-delay", r.firstDelay());
        e.notNegative(tp + "max-delay", r.maxDelay());
        if (r.maxDelay().compareTo(r.firstDelay()) < 0) {
            e.add(tp + "max-delay", r.maxDelay(), "must not be below " + tp + "first-delay (" + r.firstDelay() + ")");
        }
        e.notNegative(tp + "budget", r.budget());
        e.notNegative(tp + "catalogue-wait", r.catalogueWait());
        if (!(r.jitterRatio() >= 0 && r.jitterRatio() <= 1)) {
            e.add(tp + "jitter-ratio", r.jitterRatio(), "must be between 0 and 1");
        }
        e.throwIfAny();
        return new ServiceClient.Retry(r.firstDelay(), r.maxDelay(), r.budget(), r.jitterRatio());
    }

    /** The invalid values found, reported together so one start-up attempt shows them all. */
    final class Errors {
        private final List<String> found = new ArrayList<>();

        void add(String key, Object value, String rule) {
            found.add(key + "=" + value + " " + rule);
        }

        void atLeast(String key, long value, long min) {
            if (value < min) {
                add(key, value, "must be at least " + min);
            }
        }

        void nonNegative(String key, double value) {
            if (!(value >= 0) || Double.isInfinite(value)) {
                add(key, value, "must be 0 (unlimited) or a positive finite number");
            }
        }

        /** A share of something: above 0, at most 1. */
        void ratio(String key, double value) {
            if (!(value > 0 && value <= 1)) {
                add(key, value, "must be above 0 and at most 1");
            }
        }

        void positive(String key, Duration value) {
            if (value.isNegative() || value.isZero()) {
                add(key, value, "must be positive");
            }
        }

        void notNegative(String key, Duration value) {
            if (value.isNegative()) {
                add(key, value, "must not be negative");
            }
        }

        /** Limits of a model: output below the window, both positive (the prompt gets what the output leaves). */
        CompactionSettings.ModelLimits limits(String windowKey, int window, String outputKey, int output) {
            atLeast(outputKey, output, 1);
            if (window <= output) {
                add(windowKey, window, "must be above " + outputKey + " (" + output + ")");
            }
            return new CompactionSettings.ModelLimits(window, output);
        }

        void throwIfAny() {
            if (!found.isEmpty()) {
                throw new IllegalArgumentException("invalid engine configuration: " + String.join("; ", found));
            }
        }
    }
}
