package dev.cohort.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        assertThat(old.budgets()).isEqualTo(new Budgets(1000, 5000, 0, 0, 0, 0));
        assertThat(old.maxTokensPerTurn()).isEqualTo(1000);
        assertThat(old.maxTokensPerAgent()).isEqualTo(5000);

        Budgets full = new Budgets(10, 20, 30, 0.1, 0.2, 0.3);
        EngineSettings s = EngineSettings.defaults().withBudgets(full);
        assertThat(s.budgets()).isEqualTo(full);
        assertThat(s.maxTokensPerTurn()).isEqualTo(10);
        assertThat(s.maxTokensPerAgent()).isEqualTo(20);
        // the long form replaces only the two token budgets; other withers keep every budget
        assertThat(s.withBudgets(7, 0).budgets()).isEqualTo(new Budgets(7, 0, 30, 0.1, 0.2, 0.3));
        assertThat(s.withModel("m").withApprovalTimeout(java.time.Duration.ofSeconds(1)).withMaxModelCallsPerTurn(9)
                .withRecovery(RecoverySettings.defaults()).withCompaction(CompactionSettings.defaults())
                .withPrices(java.util.Map.of()).withMaxOutputTokens(null).withSubagentMaxModelCalls(3).budgets())
                .isEqualTo(full);
        assertThat(EngineSettings.defaults().budgets()).isEqualTo(Budgets.unlimited());
    }

    @Test
    void theOldConstructorsCarryTheirTokenBudgetsIntoBudgets() {
        EngineSettings d = EngineSettings.defaults();
        EngineSettings s = new EngineSettings(50, 30, 3, 3, 3, 5, 8000, null, d.approvalTimeout(), 100, 200,
                java.util.Map.of(), 300);
        assertThat(s.budgets()).isEqualTo(new Budgets(100, 200, 0, 0, 0, 0));
        assertThat(s).isEqualTo(d.withBudgets(100, 200));
    }

    @Test
    void twoDifferentTokenBudgetsForTheSameThingAreRefused() {
        EngineSettings d = EngineSettings.defaults();
        assertThatThrownBy(() -> new EngineSettings(50, 30, 3, 3, 3, 5, 8000, null, d.approvalTimeout(), 100, 0,
                java.util.Map.of(), 300, null, null, new Budgets(200, 0, 0, 0, 0, 0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxTokensPerTurn (100) and budgets.tokensPerTurn (200) disagree: set one of them");
        // a 0 on one side takes the other
        assertThat(new EngineSettings(50, 30, 3, 3, 3, 5, 8000, null, d.approvalTimeout(), 0, 300, java.util.Map.of(),
                300, null, null, new Budgets(200, 0, 0, 0, 0, 0)).budgets()).isEqualTo(new Budgets(200, 300, 0, 0, 0, 0));
    }
}
