package dev.cohort.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The budget decision as a table: each budget, just below and at its limit, and the order they are checked in. */
class BudgetsTest {

    private static Usage tokens(long in, long out) {
        return new Usage(in, out, 1, 0);
    }

    private static Usage cost(double usd) {
        return new Usage(10, 10, 1, usd);
    }

    static Stream<Arguments> table() {
        Budgets turnTokens = new Budgets(1000, 0, 0, 0, 0, 0);
        Budgets agentTokens = new Budgets(0, 5000, 0, 0, 0, 0);
        Budgets teamTokens = new Budgets(0, 0, 20000, 0, 0, 0);
        Budgets turnCost = new Budgets(0, 0, 0, 0.5, 0, 0);
        Budgets agentCost = new Budgets(0, 0, 0, 0, 2, 0);
        Budgets teamCost = new Budgets(0, 0, 0, 0, 0, 10);
        Budgets all = new Budgets(1000, 5000, 20000, 0.5, 2, 10);
        Usage z = Usage.ZERO;
        return Stream.of(
                Arguments.of("nothing is limited by default", Budgets.unlimited(), tokens(1L << 40, 1L << 40),
                        cost(1e9), cost(1e9), null),
                Arguments.of("turn tokens below the budget", turnTokens, tokens(600, 399), z, z, null),
                Arguments.of("turn tokens at the budget", turnTokens, tokens(600, 400), z, z,
                        "Stopped: this turn used 1000 tokens, its budget is 1000."),
                Arguments.of("turn cost below the budget", turnCost, cost(0.4999), z, z, null),
                Arguments.of("turn cost at the budget", turnCost, cost(0.5), z, z,
                        "Stopped: this turn cost $0.50, its budget is $0.50."),
                Arguments.of("agent tokens below the budget", agentTokens, z, tokens(4000, 999), z, null),
                Arguments.of("agent tokens above the budget", agentTokens, z, tokens(4000, 1200), z,
                        "Stopped: agent acme/lead used 5200 tokens, its budget is 5000."),
                Arguments.of("agent cost below the budget", agentCost, z, cost(1.99), z, null),
                Arguments.of("agent cost above the budget", agentCost, z, cost(2.0125), z,
                        "Stopped: agent acme/lead cost $2.0125, its budget is $2.00."),
                Arguments.of("team tokens below the budget", teamTokens, z, z, tokens(10000, 9999), null),
                Arguments.of("team tokens at the budget", teamTokens, z, z, tokens(10000, 10000),
                        "Stopped: team acme used 20000 tokens, its budget is 20000."),
                Arguments.of("team tokens are not checked when the team's usage is unknown", teamTokens, z, z, null,
                        null),
                Arguments.of("team cost below the budget", teamCost, z, z, cost(9.999999), null),
                Arguments.of("team cost at the budget", teamCost, z, z, cost(10),
                        "Stopped: team acme cost $10.00, its budget is $10.00."),
                Arguments.of("team cost is not checked when the team's usage is unknown", teamCost, z, z, null, null),
                Arguments.of("a null turn or agent usage counts as nothing", all, null, null, z, null),
                Arguments.of("the turn is checked before the agent", all, tokens(1000, 0), tokens(9000, 0),
                        tokens(90000, 0), "Stopped: this turn used 1000 tokens, its budget is 1000."),
                Arguments.of("tokens are checked before cost", all, new Usage(1000, 0, 1, 5), z, z,
                        "Stopped: this turn used 1000 tokens, its budget is 1000."),
                Arguments.of("the agent is checked before the team", all, z, cost(3), cost(30),
                        "Stopped: agent acme/lead cost $3.00, its budget is $2.00."),
                Arguments.of("every budget below its limit", all, tokens(500, 0), new Usage(4000, 0, 3, 1.5),
                        new Usage(15000, 0, 9, 9.5), null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void theFirstBudgetReachedNamesItsUsageAndItsLimit(String row, Budgets budgets, Usage turn, Usage agent,
            Usage team, String expected) {
        assertThat(budgets.exceeded("acme/lead", "acme", turn, agent, team)).as(row)
                .isEqualTo(Optional.ofNullable(expected));
    }

    @Test
    void aTeamBudgetWithoutATeamNameSaysTheTeam() {
        assertThat(new Budgets(0, 0, 100, 0, 0, 0).exceeded("a", null, Usage.ZERO, Usage.ZERO, tokens(60, 40)))
                .contains("Stopped: the team used 100 tokens, its budget is 100.");
    }

    @Test
    void smallCostsKeepTheirDecimals() {
        assertThat(Budgets.usd(0.0123)).isEqualTo("$0.0123");
        assertThat(Budgets.usd(0.0000004)).isEqualTo("$0.00");
        assertThat(Budgets.usd(12)).isEqualTo("$12.00");
    }

    @Test
    void aNegativeOrNonFiniteBudgetIsRefusedByName() {
        assertThatThrownBy(() -> new Budgets(-1, 0, 0, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tokensPerTurn must be 0 (unlimited) or positive, not -1");
        assertThatThrownBy(() -> new Budgets(0, 0, -5, 0, 0, 0)).hasMessageStartingWith("tokensPerTeam ");
        assertThatThrownBy(() -> new Budgets(0, 0, 0, 0, -0.01, 0))
                .hasMessage("costPerAgentUsd must be 0 (unlimited) or a positive finite number, not -0.01");
        assertThatThrownBy(() -> new Budgets(0, 0, 0, Double.NaN, 0, 0)).hasMessageStartingWith("costPerTurnUsd ");
        assertThatThrownBy(() -> new Budgets(0, 0, 0, 0, 0, Double.POSITIVE_INFINITY))
                .hasMessageStartingWith("costPerTeamUsd ");
    }

    @Test
    void theEngineSettingsTokenBudgetsAreTheBudgetsTokenBudgets() {
        EngineSettings old = EngineSettings.defaults().withBudgets(1000, 5000);
        assertThat(old.budgets()).isEqualTo(new Budgets(1000, 5000, 0, 0, 0, 0, Budgets.DEFAULT_TOKENS_PER_TEAM_PER_DAY, 0));
        assertThat(old.maxTokensPerTurn()).isEqualTo(1000);
        assertThat(old.maxTokensPerAgent()).isEqualTo(5000);

        Budgets full = new Budgets(10, 20, 30, 0.1, 0.2, 0.3);
        EngineSettings s = EngineSettings.defaults().withBudgets(full);
        assertThat(s.budgets()).isEqualTo(full);
        assertThat(s.maxTokensPerTurn()).isEqualTo(10);
        assertThat(s.maxTokensPerAgent()).isEqualTo(20);
        // the long form replaces only the two token budgets; other withers keep every budget
        assertThat(s.withBudgets(7, 0).budgets()).isEqualTo(new Budgets(7, 0, 30, 0.1, 0.2, 0.3));
        assertThat(s.withModel("m").withApprovalTimeout(Duration.ofSeconds(1)).withMaxModelCallsPerTurn(9)
                .withRecovery(RecoverySettings.defaults()).withCompaction(CompactionSettings.defaults())
                .withPrices(Map.of()).withMaxOutputTokens(null).withSubagentMaxModelCalls(3).budgets())
                .isEqualTo(full);
        assertThat(EngineSettings.defaults().budgets()).isEqualTo(Budgets.defaults());
    }

    @Test
    void aFreshTeamHasADailyTokenBudgetAndNothingElseIsLimitedByDefault() {
        Budgets d = EngineSettings.defaults().budgets();

        assertThat(d).isEqualTo(new Budgets(0, 0, 0, 0, 0, 0, 5_000_000, 0));
        assertThat(d.limitsTeamDay()).isTrue();
        assertThat(d.limitsTeam()).isFalse();
        assertThat(d.exceeded("t/lead", "t", tokens(100, 100), tokens(10_000_000, 10_000_000), tokens(1, 1),
                tokens(4_000_000, 1_000_000))).contains("Stopped: team t used 5000000 tokens today (UTC), its daily"
                        + " budget is 5000000; it resets at 00:00 UTC.");
        // a team that sets 0 is unlimited again
        assertThat(d.with(new Budgets.Overrides(null, null, null, null, null, null, 0L, null)).limitsTeamDay()).isFalse();
    }

    @Test
    void theOldConstructorsCarryTheirTokenBudgetsIntoBudgets() {
        EngineSettings d = EngineSettings.defaults();
        EngineSettings s = new EngineSettings(50, 30, 3, 3, 3, 5, 8000, null, d.approvalTimeout(), 100, 200,
                Map.of(), 300);
        assertThat(s.budgets()).isEqualTo(new Budgets(100, 200, 0, 0, 0, 0, Budgets.DEFAULT_TOKENS_PER_TEAM_PER_DAY, 0));
        assertThat(s).isEqualTo(d.withBudgets(100, 200));
    }

    @Test
    void twoDifferentTokenBudgetsForTheSameThingAreRefused() {
        EngineSettings d = EngineSettings.defaults();
        assertThatThrownBy(() -> new EngineSettings(50, 30, 3, 3, 3, 5, 8000, null, d.approvalTimeout(), 100, 0,
                Map.of(), 300, null, null, new Budgets(200, 0, 0, 0, 0, 0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxTokensPerTurn (100) and budgets.tokensPerTurn (200) disagree: set one of them");
        // a 0 on one side takes the other
        assertThat(new EngineSettings(50, 30, 3, 3, 3, 5, 8000, null, d.approvalTimeout(), 0, 300, Map.of(),
                300, null, null, new Budgets(200, 0, 0, 0, 0, 0)).budgets()).isEqualTo(new Budgets(200, 300, 0, 0, 0, 0));
    }

    // --- the team's budgets per UTC day ---

    private static final Budgets DAY_TOKENS = new Budgets(0, 0, 0, 0, 0, 0, 10_000, 0);
    private static final Budgets DAY_COST = new Budgets(0, 0, 0, 0, 0, 0, 0, 5);

    @Test
    void aDayBudgetIsReachedByTheTeamsUsageOfTheDayAndSaysItResetsAtMidnightUtc() {
        assertThat(DAY_TOKENS.exceeded("acme/lead", "acme", Usage.ZERO, Usage.ZERO, null, tokens(5000, 4999)))
                .isEmpty();
        assertThat(DAY_TOKENS.breach("acme/lead", "acme", Usage.ZERO, Usage.ZERO, null, tokens(5000, 5000)))
                .hasValueSatisfying(b -> {
                    assertThat(b.budget()).isEqualTo("tokensPerTeamPerDay");
                    assertThat(b.scope()).isEqualTo("team-day").isEqualTo(Budgets.TEAM_DAY);
                    assertThat(b.used()).isEqualTo(10_000);
                    assertThat(b.limit()).isEqualTo(10_000);
                    assertThat(b.text()).isEqualTo("Stopped: team acme used 10000 tokens today (UTC), its daily budget "
                            + "is 10000; it resets at 00:00 UTC.");
                });
        assertThat(DAY_COST.exceeded("a", null, Usage.ZERO, Usage.ZERO, null, cost(4.99))).isEmpty();
        assertThat(DAY_COST.exceeded("a", null, Usage.ZERO, Usage.ZERO, null, cost(5.25))).contains(
                "Stopped: the team cost $5.25 today (UTC), its daily budget is $5.00; it resets at 00:00 UTC.");
        // not tracked: not checked; the five-argument form never checks the day
        assertThat(DAY_TOKENS.exceeded("a", "acme", Usage.ZERO, Usage.ZERO, tokens(1L << 40, 0), null)).isEmpty();
        assertThat(DAY_TOKENS.exceeded("a", "acme", Usage.ZERO, Usage.ZERO, tokens(1L << 40, 0))).isEmpty();
        // the team's life budget comes before its day's
        Budgets both = new Budgets(0, 0, 100, 0, 0, 0, 100, 0);
        assertThat(both.breach("a", "acme", Usage.ZERO, Usage.ZERO, tokens(100, 0), tokens(100, 0)))
                .hasValueSatisfying(b -> assertThat(b.scope()).isEqualTo("team"));
        assertThat(both.breach("a", "acme", Usage.ZERO, Usage.ZERO, tokens(10, 0), tokens(100, 0)))
                .hasValueSatisfying(b -> assertThat(b.scope()).isEqualTo("team-day"));
    }

    @Test
    void aDayBudgetWarnsOnceAtEightyPercentOfTheDaysUsage() {
        Budgets b = new Budgets(0, 0, 0, 0, 0, 0, 1000, 1);
        List<Budgets.Breach> w = b.crossed("a", "acme", Usage.ZERO, null, null, new Usage(700, 0, 1, 0.5),
                new Usage(100, 20, 1, 0.35));
        assertThat(w).extracting(Budgets.Breach::budget).containsExactly("tokensPerTeamPerDay", "costPerTeamPerDayUsd");
        assertThat(w.get(0).scope()).isEqualTo("team-day");
        assertThat(w.get(0).text())
                .isEqualTo("Warning: team acme today (UTC) has used 820 tokens, 82 % of its budget tokensPerTeamPerDay (1000).");
        assertThat(w.get(1).text())
                .isEqualTo("Warning: team acme today (UTC) has used $0.85, 85 % of its budget costPerTeamPerDayUsd ($1.00).");
        // already past the mark: no second warning; not tracked: none; the six-argument form ignores the day
        assertThat(b.crossed("a", "acme", Usage.ZERO, null, null, new Usage(820, 0, 1, 0.9), tokens(10, 0))).isEmpty();
        assertThat(b.crossed("a", "acme", Usage.ZERO, null, null, null, tokens(900, 0))).isEmpty();
        assertThat(b.crossed("a", "acme", Usage.ZERO, null, null, tokens(900, 0))).isEmpty();
    }

    @Test
    void theUsageOfYesterdayDoesNotCountTodayAndTheDayStartsAtMidnightUtc() {
        Instant lateYesterday = Instant.parse("2026-12-01T23:59:59.999Z");
        Instant midnight = Instant.parse("2026-12-02T00:00:00Z");
        assertThat(Budgets.startOfUtcDay(lateYesterday)).isEqualTo(Instant.parse("2026-12-01T00:00:00Z"));
        assertThat(Budgets.startOfUtcDay(midnight)).isEqualTo(midnight);
        assertThat(Budgets.startOfUtcDay(Instant.parse("2026-12-02T17:30:00Z"))).isEqualTo(midnight);

        // a host read 9,999 tokens of the team's day just before midnight
        Budgets.DayUsage read = new Budgets.DayUsage(LocalDate.of(2026, 12, 1), tokens(9000, 999));
        MutableClock clock = new MutableClock(lateYesterday);
        assertThat(read.on(clock)).isEqualTo(tokens(9000, 999));
        assertThat(DAY_TOKENS.exceeded("a", "acme", Usage.ZERO, Usage.ZERO, null,
                read.on(clock).plus(tokens(1, 0)))).isPresent();
        // at 00:00 UTC the same reading counts nothing: the new day's budget is whole again
        clock.now = midnight;
        assertThat(read.on(clock)).isEqualTo(Usage.ZERO);
        assertThat(DAY_TOKENS.exceeded("a", "acme", Usage.ZERO, Usage.ZERO, null, read.on(clock).plus(tokens(1, 0))))
                .isEmpty();
        // the clock's zone does not matter: the day is UTC's (in Tokyo it is already 2 December at 23:59 UTC)
        clock.now = lateYesterday;
        assertThat(read.on(clock.withZone(ZoneId.of("Asia/Tokyo")))).isEqualTo(tokens(9000, 999));
        assertThat(new Budgets.DayUsage(LocalDate.of(2026, 12, 1), null).usage()).isEqualTo(Usage.ZERO);
    }

    @Test
    void theDayBudgetsAreOverriddenMergedAndValidatedLikeTheOthers() {
        Budgets d = new Budgets(1, 2, 3, 0.1, 0.2, 0.3);
        assertThat(d.tokensPerTeamPerDay()).isZero();
        assertThat(d.costPerTeamPerDayUsd()).isZero();
        assertThat(d.limitsTeamDay()).isFalse();
        Budgets o = d.with(new Budgets.Overrides(null, null, null, null, null, null, 500L, 2.5));
        assertThat(o).isEqualTo(new Budgets(1, 2, 3, 0.1, 0.2, 0.3, 500, 2.5));
        assertThat(o.limitsTeamDay()).isTrue();
        // the six-value overrides keep the day's defaults
        assertThat(o.with(new Budgets.Overrides(9L, null, null, null, null, null))).isEqualTo(
                new Budgets(9, 2, 3, 0.1, 0.2, 0.3, 500, 2.5));
        assertThat(o.withTokens(7, 8)).isEqualTo(new Budgets(7, 8, 3, 0.1, 0.2, 0.3, 500, 2.5));
        Budgets.Overrides m = new Budgets.Overrides(1L, null, null, null, null, null, 100L, null)
                .merge(new Budgets.Overrides(null, null, null, null, null, null, null, 3.0));
        assertThat(m).isEqualTo(new Budgets.Overrides(1L, null, null, null, null, null, 100L, 3.0));
        assertThatThrownBy(() -> new Budgets(0, 0, 0, 0, 0, 0, -1, 0))
                .hasMessage("tokensPerTeamPerDay must be 0 (unlimited) or positive, not -1");
        assertThatThrownBy(() -> new Budgets(0, 0, 0, 0, 0, 0, 0, -2))
                .hasMessageStartingWith("costPerTeamPerDayUsd must be 0 (unlimited) or a positive finite number");
        assertThatThrownBy(() -> new Budgets.Overrides(null, null, null, null, null, null, -3L, null))
                .hasMessageStartingWith("tokensPerTeamPerDay ");
        assertThatThrownBy(() -> new Budgets.Overrides(null, null, null, null, null, null, null, Double.NaN))
                .hasMessageStartingWith("costPerTeamPerDayUsd ");
    }

    /** A clock the test moves. */

    @Test
    void aCallWithoutAPriceWarnsOncePerTurnThatTheUsdBudgetsCannotLimitIt() {
        Usage unpriced = new Usage(1000, 10, 1, 0, 0, 0, 1);
        Budgets agentCost = new Budgets(0, 0, 0, 0, 2, 0);
        Optional<Budgets.Breach> w = agentCost.unpriced("my-model", new Usage(10, 10, 1, 0.25), unpriced);
        assertThat(w).hasValueSatisfying(b -> {
            assertThat(b.budget()).isEqualTo("costPerAgentUsd");
            assertThat(b.scope()).isEqualTo("agent");
            assertThat(b.used()).isEqualTo(0.25);
            assertThat(b.limit()).isEqualTo(2.0);
            assertThat(b.text()).startsWith("Unknown price: model my-model has no price")
                    .contains("cohort.engine.prices.\"my-model\"");
        });
        assertThat(agentCost.unpriced("my-model", unpriced, unpriced)).as("the turn already had one").isEmpty();
        assertThat(agentCost.unpriced("gpt-4o", Usage.ZERO, new Usage(1000, 10, 1, 0.01))).as("priced").isEmpty();
        assertThat(Budgets.defaults().unpriced("my-model", Usage.ZERO, unpriced)).as("no USD budget").isEmpty();
        assertThat(new Budgets(0, 0, 0, 0, 0, 0, 0, 5).unpriced(null, null, unpriced))
                .hasValueSatisfying(b -> assertThat(b.scope()).isEqualTo(Budgets.TEAM_DAY));
    }

    private static final class MutableClock extends Clock {
        Instant now;
        private final ZoneId zone;

        MutableClock(Instant now) {
            this(now, ZoneOffset.UTC);
        }

        private MutableClock(Instant now, ZoneId zone) {
            this.now = now;
            this.zone = zone;
        }

        @Override
        public ZoneId getZone() {
            return zone;
        }

        @Override
        public Clock withZone(ZoneId z) {
            return new MutableClock(now, z);
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
