package dev.cohort.host.engine;

import dev.cohort.core.http.ServiceClient;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.core.engine.Budgets;
import dev.cohort.core.engine.CompactionSettings;
import dev.cohort.core.engine.EngineSettings;
import dev.cohort.core.engine.RecoverySettings;
import dev.cohort.core.memory.MemorySettings;
import dev.cohort.core.toolrunner.ToolRunnerClient;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code cohort.engine.*} to the engine's records, through the real SmallRye mapping (as Quarkus builds it, with its
 * duration converter) but without booting Quarkus.
 */
class EngineConfigTest {

    private static SmallRyeConfig config(Map<String, String> props) {
        return new SmallRyeConfigBuilder().withMapping(EngineConfig.class)
                .withConverter(Duration.class, 200, new DurationConverter())
                .withSources(new PropertiesConfigSource(props, "test", 300)).build();
    }

    private static EngineConfig engine(Map<String, String> props) {
        return config(props).getConfigMapping(EngineConfig.class);
    }

    private static EngineSettings settings(Map<String, String> props) {
        return EngineConfig.toSettings(engine(props));
    }

    private static EngineSettings settings(Map<String, String> props, EngineConfig.DeprecatedAliases legacy) {
        return EngineConfig.toSettings(engine(props), legacy);
    }

    /** A service's deprecated aliases, as the lead's {@code cohort.lead.*} mapping hands them over. */
    private static EngineConfig.DeprecatedAliases lead(Integer maxCalls, Duration approval) {
        return new EngineConfig.DeprecatedAliases("cohort.lead.",
                maxCalls == null ? OptionalInt.empty() : OptionalInt.of(maxCalls), Optional.ofNullable(approval));
    }

    private static MemorySettings memory(Map<String, String> props) {
        return EngineConfig.toMemorySettings(config(props).getConfigMapping(EngineConfig.class));
    }

    @Test
    void anEmptyConfigurationGivesExactlyTheRecordsDefaults() {
        assertThat(settings(Map.of())).isEqualTo(EngineSettings.defaults());
        assertThat(settings(Map.of(), EngineConfig.DeprecatedAliases.NONE)).isEqualTo(EngineSettings.defaults());
        assertThat(memory(Map.of())).isEqualTo(MemorySettings.defaults());
        assertThat(EngineConfig.toToolRunnerRetry(engine(Map.of()))).isEqualTo(ServiceClient.Retry.DEFAULT);
        assertThat(EngineConfig.toMemoryWork(engine(Map.of()))).isEqualTo(new BoundedExecutor.Limits(4, 64,
                "cohort.engine.memory.extraction-concurrency", "cohort.engine.memory.extraction-queue"));
    }

    @Test
    void everyToolRunnerRetryPropertyReachesTheClientsRetryPolicy() {
        String t = "cohort.engine.tool-runner-retry.";
        assertThat(EngineConfig.toToolRunnerRetry(engine(Map.of(t + "first-delay", "50ms", t + "max-delay", "2s",
                t + "budget", "1m", t + "jitter-ratio", "0")))).isEqualTo(new ServiceClient.Retry(Duration.ofMillis(50),
                Duration.ofSeconds(2), Duration.ofMinutes(1), 0));
        // a budget of 0 is allowed: no retry at all
        assertThat(EngineConfig.toToolRunnerRetry(engine(Map.of(t + "budget", "0s"))).budget()).isZero();
    }

    @Test
    void theTeamsMcpServersAreOnByDefaultAndOneKeySwitchesThemOff() {
        assertThat(engine(Map.of()).mcp().enabled()).isTrue();
        assertThat(engine(Map.of("cohort.engine.mcp.enabled", "false")).mcp().enabled()).isFalse();
    }

    static Stream<Arguments> invalidRetry() {
        String t = "cohort.engine.tool-runner-retry.";
        return Stream.of(
                Arguments.of(t + "first-delay", "-1s", t + "first-delay=PT-1S must not be negative"),
                Arguments.of(t + "max-delay", "100ms", t + "max-delay=PT0.1S must not be below " + t
                        + "first-delay (PT0.2S)"),
                Arguments.of(t + "budget", "-5s", t + "budget=PT-5S must not be negative"),
                Arguments.of(t + "jitter-ratio", "1.5", t + "jitter-ratio=1.5 must be between 0 and 1"));
    }

    @ParameterizedTest(name = "{0}={1}")
    @MethodSource("invalidRetry")
    void anInvalidToolRunnerRetryValueIsRefusedNamingItsProperty(String key, String value, String message) {
        assertThatThrownBy(() -> EngineConfig.toToolRunnerRetry(engine(Map.of(key, value))))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("invalid engine configuration: " + message);
    }

    @Test
    void theMemoryWorkBoundsAreConfigurableAndAnInvalidOneIsRefusedNamingItsProperty() {
        String m = "cohort.engine.memory.";
        BoundedExecutor.Limits l = EngineConfig.toMemoryWork(engine(Map.of(m + "extraction-concurrency", "2",
                m + "extraction-queue", "0")));
        assertThat(l.concurrency()).isEqualTo(2);
        assertThat(l.queue()).isZero();
        assertThatThrownBy(() -> EngineConfig.toMemoryWork(engine(Map.of(m + "extraction-concurrency", "0"))))
                .hasMessage("invalid engine configuration: " + m + "extraction-concurrency=0 must be at least 1");
        assertThatThrownBy(() -> EngineConfig.toMemoryWork(engine(Map.of(m + "extraction-queue", "-1"))))
                .hasMessage("invalid engine configuration: " + m + "extraction-queue=-1 must be at least 0");
    }

    @Test
    void everyPropertyReachesItsSetting() {
        Map<String, String> p = new HashMap<>();
        p.put("cohort.engine.max-model-calls-per-turn", "40");
        p.put("cohort.engine.subagent-max-model-calls", "20");
        p.put("cohort.engine.max-stop-continuations", "1");
        p.put("cohort.engine.todo-reminder-rounds", "4");
        p.put("cohort.engine.stuck-notice-at", "2");
        p.put("cohort.engine.stuck-end-at", "6");
        p.put("cohort.engine.max-output-tokens", "0");
        p.put("cohort.engine.approval-timeout", "90s");
        p.put("cohort.engine.preview-chars", "120");
        p.put("cohort.engine.budgets.tokens-per-turn", "100000");
        p.put("cohort.engine.budgets.tokens-per-agent", "2000000");
        p.put("cohort.engine.budgets.tokens-per-team", "9000000");
        p.put("cohort.engine.budgets.cost-per-turn-usd", "0.5");
        p.put("cohort.engine.budgets.cost-per-agent-usd", "5");
        p.put("cohort.engine.budgets.cost-per-team-usd", "20.25");
        p.put("cohort.engine.budgets.tokens-per-team-per-day", "3000000");
        p.put("cohort.engine.budgets.cost-per-team-per-day-usd", "7.5");
        p.put("cohort.engine.prices.\"gpt-4.1\".input-per-million", "2");
        p.put("cohort.engine.prices.\"gpt-4.1\".output-per-million", "8");
        p.put("cohort.engine.prices.\"gpt-4.1\".cached-input-per-million", "0.5");
        p.put("cohort.engine.prices.\"gpt-4o-mini\".input-per-million", "0.15");
        p.put("cohort.engine.prices.\"claude-x\".input-per-million", "3");
        p.put("cohort.engine.prices.\"claude-x\".output-per-million", "15");
        p.put("cohort.engine.prices.\"claude-x\".cache-read-per-million", "0.3");
        p.put("cohort.engine.prices.\"claude-x\".cache-write-per-million", "3.75");
        p.put("cohort.engine.models.\"gpt-4.1\".context-window", "1047576");
        p.put("cohort.engine.models.\"gpt-4.1\".max-output-tokens", "32768");
        p.put("cohort.engine.models.\"small\".context-window", "32000");
        p.put("cohort.engine.models.\"small\".auto-compact-ratio", "0.6");
        p.put("cohort.engine.models.\"small\".micro-compact-ratio", "0.3");
        p.put("cohort.engine.compaction.default-context-window", "64000");
        p.put("cohort.engine.compaction.default-max-output-tokens", "4096");
        p.put("cohort.engine.compaction.auto-compact-ratio", "0.9");
        p.put("cohort.engine.compaction.micro-compact-ratio", "0.6");
        p.put("cohort.engine.compaction.max-tool-result-tokens", "5000");
        p.put("cohort.engine.compaction.preview-chars", "1000");
        p.put("cohort.engine.compaction.snip-max-messages", "100");
        p.put("cohort.engine.compaction.snip-keep-head", "2");
        p.put("cohort.engine.compaction.snip-keep-tail", "50");
        p.put("cohort.engine.compaction.keep-recent-turns", "2");
        p.put("cohort.engine.compaction.micro-compact-min-tokens", "100");
        p.put("cohort.engine.compaction.summary-input-ratio", "0.4");
        p.put("cohort.engine.compaction.summary-tail-ratio", "0.1");
        p.put("cohort.engine.compaction.summary-max-tokens", "3000");
        p.put("cohort.engine.recovery.max-attempts", "4");
        p.put("cohort.engine.recovery.base-delay", "250ms");
        p.put("cohort.engine.recovery.max-delay", "10s");
        p.put("cohort.engine.recovery.max-retry-after", "1m");
        p.put("cohort.engine.recovery.jitter-ratio", "0");
        p.put("cohort.engine.recovery.overloads-before-fallback", "2");
        p.put("cohort.engine.recovery.escalated-max-output-tokens", "32000");
        p.put("cohort.engine.recovery.max-continuations", "1");
        p.put("cohort.engine.recovery.max-truncated-tool-rounds", "0");

        EngineSettings expected = new EngineSettings(40, 20, 1, 4, 2, 6, null, null, Duration.ofSeconds(90), 100000,
                2000000, Map.of("gpt-4.1", new EngineSettings.ModelPrice(2, 8, 0.5), "gpt-4o-mini",
                        new EngineSettings.ModelPrice(0.15, 0), "claude-x",
                        new EngineSettings.ModelPrice(3, 15, 0.3, 3.75)), 120,
                new RecoverySettings(4, Duration.ofMillis(250), Duration.ofSeconds(10), Duration.ofMinutes(1), 0, 2, null,
                        32000, 1, 0),
                new CompactionSettings(new CompactionSettings.ModelLimits(64000, 4096),
                        Map.of("gpt-4.1", new CompactionSettings.ModelLimits(1047576, 32768), "small",
                                new CompactionSettings.ModelLimits(32000, 4096, 0.6, 0.3)),
                        0.9, 0.6, 5000, 1000, 100, 2, 50, 2, 100, 0.4, 0.1, 3000),
                new Budgets(100000, 2000000, 9000000, 0.5, 5, 20.25, 3000000, 7.5));
        assertThat(settings(p)).isEqualTo(expected);
        // a model listed without sizes gets the default ones, and prices are what cost reporting uses
        assertThat(settings(p).compaction().limitsFor("small").maxOutputTokens()).isEqualTo(4096);
        assertThat(settings(p).cost("gpt-4.1", 1_000_000, 500_000)).isEqualTo(6.0);
        // cached prompt tokens at the cached price; without one (gpt-4o-mini) at the input price
        assertThat(settings(p).cost("gpt-4.1", 1_000_000, 500_000, 400_000)).isCloseTo(5.4, Offset.offset(1e-12));
        assertThat(settings(p).cost("gpt-4o-mini", 1_000_000, 0, 1_000_000)).isEqualTo(0.15);
        // cache writes at the cache write price; without one (gpt-4.1) at the input price
        assertThat(settings(p).cost("claude-x", 1_000_000, 0, 400_000, 100_000))
                .isCloseTo((500_000 * 3 + 400_000 * 0.3 + 100_000 * 3.75) / 1_000_000, Offset.offset(1e-12));
        assertThat(settings(p).cost("gpt-4.1", 1_000_000, 0, 0, 1_000_000)).isEqualTo(2.0);
        // a configured price replaces the built-in table's for its model (gpt-4o-mini's output is 0 here)
        assertThat(settings(p).cost("gpt-4o-mini", 0, 1_000_000)).isZero();
        assertThat(settings(p).price("gpt-4o-mini")).isPresent();
        // a model's own thresholds; the others keep the global ones
        assertThat(settings(p).compaction().autoCompactRatioFor("small")).isEqualTo(0.6);
        assertThat(settings(p).compaction().microCompactRatioFor("small")).isEqualTo(0.3);
        assertThat(settings(p).compaction().autoCompactRatioFor("gpt-4.1")).isEqualTo(0.9);
    }

    @Test
    void everyMemoryPropertyReachesItsSetting() {
        Map<String, String> p = new HashMap<>();
        String m = "cohort.engine.memory.";
        p.put(m + "max-selected", "3");
        p.put(m + "max-injected-chars", "4000");
        p.put(m + "max-index-chars", "3000");
        p.put(m + "recent-chars", "1000");
        p.put(m + "extraction-input-chars", "5000");
        p.put(m + "consolidate-above", "40");
        p.put(m + "consolidate-target", "25");
        p.put(m + "consolidation-input-chars", "16000");
        p.put(m + "select-max-tokens", "100");
        p.put(m + "extract-max-tokens", "1000");
        p.put(m + "consolidate-max-tokens", "5000");
        p.put(m + "attempts", "2");
        assertThat(memory(p)).isEqualTo(new MemorySettings(3, 4000, 3000, 1000, 5000, 40, 25, 16000, 100, 1000, 5000, 2));
    }

    @Test
    void aServicesDeprecatedAliasesApplyOnlyWhileTheEngineKeysAreUnset() {
        EngineConfig.DeprecatedAliases legacy = lead(12, Duration.ofMinutes(2));
        assertThat(settings(Map.of(), legacy).maxModelCallsPerTurn()).isEqualTo(12);
        assertThat(settings(Map.of(), legacy).approvalTimeout()).isEqualTo(Duration.ofMinutes(2));

        Map<String, String> both = Map.of("cohort.engine.max-model-calls-per-turn", "30",
                "cohort.engine.approval-timeout", "45s");
        assertThat(settings(both, legacy).maxModelCallsPerTurn()).isEqualTo(30);
        assertThat(settings(both, legacy).approvalTimeout()).isEqualTo(Duration.ofSeconds(45));
    }

    @Test
    void anInvalidAliasIsRefusedNamingTheAliasAndAnInvalidEngineKeyNamingTheEngineKey() {
        assertThatThrownBy(() -> settings(Map.of(), lead(1, null)))
                .hasMessage("invalid engine configuration: cohort.lead.max-model-calls-per-turn=1 must be at least 2");
        assertThatThrownBy(() -> settings(Map.of(), lead(null, Duration.ZERO)))
                .hasMessage("invalid engine configuration: cohort.lead.approval-timeout=PT0S must be positive");
        assertThatThrownBy(() -> settings(Map.of("cohort.engine.max-model-calls-per-turn", "1"), lead(12, null)))
                .hasMessage("invalid engine configuration: cohort.engine.max-model-calls-per-turn=1 must be at least 2");
    }

    static Stream<Arguments> invalid() {
        return Stream.of(
                Arguments.of("cohort.engine.budgets.tokens-per-turn", "-1",
                        "cohort.engine.budgets.tokens-per-turn=-1 must be at least 0"),
                Arguments.of("cohort.engine.budgets.tokens-per-agent", "-5",
                        "cohort.engine.budgets.tokens-per-agent=-5 must be at least 0"),
                Arguments.of("cohort.engine.budgets.tokens-per-team", "-100",
                        "cohort.engine.budgets.tokens-per-team=-100 must be at least 0"),
                Arguments.of("cohort.engine.budgets.cost-per-turn-usd", "-0.01",
                        "cohort.engine.budgets.cost-per-turn-usd=-0.01 must be 0 (unlimited) or a positive finite number"),
                Arguments.of("cohort.engine.budgets.cost-per-agent-usd", "NaN",
                        "cohort.engine.budgets.cost-per-agent-usd=NaN must be 0 (unlimited) or a positive finite number"),
                Arguments.of("cohort.engine.budgets.cost-per-team-usd", "-3",
                        "cohort.engine.budgets.cost-per-team-usd=-3.0 must be 0 (unlimited) or a positive finite number"),
                Arguments.of("cohort.engine.budgets.tokens-per-team-per-day", "-7",
                        "cohort.engine.budgets.tokens-per-team-per-day=-7 must be at least 0"),
                Arguments.of("cohort.engine.budgets.cost-per-team-per-day-usd", "-0.5",
                        "cohort.engine.budgets.cost-per-team-per-day-usd=-0.5 must be 0 (unlimited) or a positive finite number"),
                Arguments.of("cohort.engine.prices.\"m\".input-per-million", "-1",
                        "cohort.engine.prices.\"m\".input-per-million=-1.0 must be 0 (unlimited) or a positive finite number"),
                Arguments.of("cohort.engine.prices.\"m\".cached-input-per-million", "-2",
                        "cohort.engine.prices.\"m\".cached-input-per-million=-2.0 must be 0 (unlimited) or a positive finite number"),
                Arguments.of("cohort.engine.prices.\"m\".cache-write-per-million", "-3",
                        "cohort.engine.prices.\"m\".cache-write-per-million=-3.0 must be 0 (unlimited) or a positive finite number"),
                Arguments.of("cohort.engine.compaction.auto-compact-ratio", "1.2",
                        "cohort.engine.compaction.auto-compact-ratio=1.2 must be above 0 and at most 1"),
                Arguments.of("cohort.engine.compaction.micro-compact-ratio", "0",
                        "cohort.engine.compaction.micro-compact-ratio=0.0 must be above 0 and at most 1"),
                Arguments.of("cohort.engine.compaction.summary-input-ratio", "2",
                        "cohort.engine.compaction.summary-input-ratio=2.0 must be above 0 and at most 1"),
                Arguments.of("cohort.engine.compaction.summary-tail-ratio", "-0.1",
                        "cohort.engine.compaction.summary-tail-ratio=-0.1 must be above 0 and at most 1"),
                Arguments.of("cohort.engine.compaction.snip-max-messages", "300",
                        "cohort.engine.compaction.snip-max-messages=300 must be above "
                                + "cohort.engine.compaction.snip-keep-head + cohort.engine.compaction.snip-keep-tail (304)"),
                Arguments.of("cohort.engine.compaction.default-max-output-tokens", "200000",
                        "cohort.engine.compaction.default-context-window=128000 must be above "
                                + "cohort.engine.compaction.default-max-output-tokens (200000)"),
                Arguments.of("cohort.engine.models.\"tiny\".context-window", "8000",
                        "cohort.engine.models.\"tiny\".context-window=8000 must be above "
                                + "cohort.engine.models.\"tiny\".max-output-tokens (16384)"),
                Arguments.of("cohort.engine.recovery.jitter-ratio", "1.5",
                        "cohort.engine.recovery.jitter-ratio=1.5 must be between 0 and 1"),
                Arguments.of("cohort.engine.recovery.max-attempts", "0",
                        "cohort.engine.recovery.max-attempts=0 must be at least 1"),
                Arguments.of("cohort.engine.recovery.max-delay", "100ms",
                        "cohort.engine.recovery.max-delay=PT0.1S must not be below cohort.engine.recovery.base-delay (PT0.5S)"),
                Arguments.of("cohort.engine.max-model-calls-per-turn", "1",
                        "cohort.engine.max-model-calls-per-turn=1 must be at least 2"),
                Arguments.of("cohort.engine.approval-timeout", "0s",
                        "cohort.engine.approval-timeout=PT0S must be positive"),
                Arguments.of("cohort.engine.stuck-end-at", "2",
                        "cohort.engine.stuck-end-at=2 must be at least 3"),
                Arguments.of("cohort.engine.max-output-tokens", "-1",
                        "cohort.engine.max-output-tokens=-1 must be at least 0"));
    }

    @ParameterizedTest(name = "{0}={1}")
    @MethodSource("invalid")
    void anInvalidValueIsRefusedNamingItsProperty(String key, String value, String message) {
        assertThatThrownBy(() -> settings(Map.of(key, value))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("invalid engine configuration: " + message);
    }

    @Test
    void everyInvalidValueIsReportedAtOnce() {
        assertThatThrownBy(() -> settings(Map.of("cohort.engine.budgets.tokens-per-turn", "-1",
                "cohort.engine.compaction.auto-compact-ratio", "1.5")))
                .hasMessageContaining("cohort.engine.budgets.tokens-per-turn=-1")
                .hasMessageContaining("cohort.engine.compaction.auto-compact-ratio=1.5");
    }

    @Test
    void anInvalidMemoryValueIsRefusedNamingItsProperty() {
        assertThatThrownBy(() -> memory(Map.of("cohort.engine.memory.attempts", "0")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("invalid engine configuration: cohort.engine.memory.attempts=0 must be at least 1");
        assertThatThrownBy(() -> memory(Map.of("cohort.engine.memory.consolidate-above", "10")))
                .hasMessage("invalid engine configuration: cohort.engine.memory.consolidate-above=10 must be at least 20");
    }

    @Test
    void aDurationWithAnUnknownUnitFailsTheConfigurationNamingItsProperty() {
        assertThatThrownBy(() -> config(Map.of("cohort.engine.recovery.base-delay", "5 parsecs")))
                .hasMessageContaining("cohort.engine.recovery.base-delay").hasMessageContaining("5 parsecs");
        assertThatThrownBy(() -> config(Map.of("cohort.engine.approval-timeout", "10x")))
                .hasMessageContaining("cohort.engine.approval-timeout").hasMessageContaining("10x");
    }

    @Test
    void aNumberThatIsNotANumberFailsTheConfigurationNamingItsProperty() {
        assertThatThrownBy(() -> config(Map.of("cohort.engine.budgets.cost-per-team-usd", "ten dollars")))
                .hasMessageContaining("cohort.engine.budgets.cost-per-team-usd").hasMessageContaining("ten dollars");
    }
}
