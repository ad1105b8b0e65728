package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.core.protocol.Json;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code cohort budget}: the {@code --set} options as the PUT body, and the answer of lead-service as a table. */
class BudgetCommandTest {

    @Test
    void setOptionsBecomeThePutBodyInKebabCaseOrApiNamesAndDefaultClearsAField() {
        Map<String, Object> expected = new HashMap<>();
        expected.put("tokensPerTeam", 2_000_000L);
        expected.put("costPerTeamUsd", 25.5);
        expected.put("tokensPerTurn", 0L);
        expected.put("costPerAgentUsd", null);
        assertThat(BudgetCommand.body(List.of("tokens-per-team=2000000", "costPerTeamUsd=25.5", "tokens-per-turn=0",
                "cost-per-agent-usd=default"))).isEqualTo(expected);
        assertThat(BudgetCommand.body(List.of())).isEmpty();
        Map<String, Object> daily = new HashMap<>();
        daily.put("tokensPerTeamPerDay", 500_000L);
        daily.put("costPerTeamPerDayUsd", 5.0);
        assertThat(BudgetCommand.body(List.of("tokens-per-team-per-day=500000", "costPerTeamPerDayUsd=5")))
                .isEqualTo(daily);
        assertThatThrownBy(() -> BudgetCommand.body(List.of("tokens-per-team-per-day=-2")))
                .hasMessage("--set tokens-per-team-per-day=-2: tokensPerTeamPerDay must be 0 (unlimited) or positive");
        assertThatThrownBy(() -> BudgetCommand.body(List.of("tokens-per-team-per-day=0.5")))
                .hasMessage("--set tokens-per-team-per-day=0.5: tokensPerTeamPerDay counts tokens: a whole number");
    }

    @Test
    void aBadKeyOrValueIsRefusedNamingIt() {
        assertThatThrownBy(() -> BudgetCommand.body(List.of("tokens-per-week=5")))
                .hasMessage("unknown budget 'tokens-per-week'; one of tokens-per-turn, tokens-per-agent, tokens-per-team, "
                        + "cost-per-turn-usd, cost-per-agent-usd, cost-per-team-usd, tokens-per-team-per-day, "
                        + "cost-per-team-per-day-usd");
        assertThatThrownBy(() -> BudgetCommand.body(List.of("tokens-per-team"))).hasMessageContaining("expected KEY=VALUE");
        assertThatThrownBy(() -> BudgetCommand.body(List.of("tokens-per-team=-1")))
                .hasMessage("--set tokens-per-team=-1: tokensPerTeam must be 0 (unlimited) or positive");
        assertThatThrownBy(() -> BudgetCommand.body(List.of("tokens-per-team=1.5")))
                .hasMessage("--set tokens-per-team=1.5: tokensPerTeam counts tokens: a whole number");
        assertThatThrownBy(() -> BudgetCommand.body(List.of("cost-per-team-usd=lots")))
                .hasMessageContaining("must be a number ≥ 0 (0 = unlimited) or 'default', not 'lots'");
    }

    @Test
    void aBadSetExitsWithoutARequest() {
        // no lead-service at this URL: a request would say so; the refusal comes first
        int code = new CommandLine(new Main()).execute("budget", "--url", "http://127.0.0.1:1", "--set", "nope=1");
        assertThat(code).isEqualTo(ApiCommand.REQUEST_FAILED);
    }

    @Test
    void theTableShowsEachBudgetInForceItsDefaultAndTheTeamsOwn() throws Exception {
        var answer = Json.MAPPER.readTree("""
                {"team":"t","tokensPerTurn":0,"tokensPerAgent":50000,"tokensPerTeam":2000000,"costPerTurnUsd":0,
                 "costPerAgentUsd":0,"costPerTeamUsd":25.5,"tokensPerTeamPerDay":300000,"costPerTeamPerDayUsd":5,
                 "defaults":{"tokensPerTurn":0,"tokensPerAgent":50000,"tokensPerTeam":0,"costPerTurnUsd":0,
                  "costPerAgentUsd":0,"costPerTeamUsd":10,"tokensPerTeamPerDay":0,"costPerTeamPerDayUsd":5},
                 "overrides":{"tokensPerTeam":2000000,"costPerTeamUsd":25.5,"tokensPerTeamPerDay":300000}}""");
        assertThat(BudgetCommand.table(answer)).containsExactly(
                "BUDGET                     IN FORCE   DEFAULT    TEAM'S OWN",
                "tokens-per-turn            unlimited  unlimited  -",
                "tokens-per-agent           50000      50000      -",
                "tokens-per-team            2000000    unlimited  2000000",
                "cost-per-turn-usd          unlimited  unlimited  -",
                "cost-per-agent-usd         unlimited  unlimited  -",
                "cost-per-team-usd          $25.50     $10.00     $25.50",
                "tokens-per-team-per-day    300000     unlimited  300000",
                "cost-per-team-per-day-usd  $5.00      $5.00      -");
    }

    @Test
    void theLimitsOnCronJobsTheAgentsCreateFollowTheBudgetsWithTheKeysThatSetThem() throws Exception {
        var answer = Json.MAPPER.readTree("""
                {"team":"t","tokensPerTurn":0,"tokensPerAgent":0,"tokensPerTeam":0,"costPerTurnUsd":0,
                 "costPerAgentUsd":0,"costPerTeamUsd":0,"tokensPerTeamPerDay":5000000,"costPerTeamPerDayUsd":0,
                 "defaults":{"tokensPerTurn":0,"tokensPerAgent":0,"tokensPerTeam":0,"costPerTurnUsd":0,
                  "costPerAgentUsd":0,"costPerTeamUsd":0,"tokensPerTeamPerDay":5000000,"costPerTeamPerDayUsd":0},
                 "overrides":{},
                 "cronJobs":{"approval":"ask","scheduler":{"team":"t","maxJobsPerTeam":100,"minIntervalSeconds":60,
                  "maxModelJobsPerTeam":10,"modelMinIntervalSeconds":600,"jobs":3,"modelJobs":2},
                  "schedulerUnavailable":null}}""");

        assertThat(BudgetCommand.table(answer)).containsExactly(
                "BUDGET                     IN FORCE   DEFAULT    TEAM'S OWN",
                "tokens-per-turn            unlimited  unlimited  -",
                "tokens-per-agent           unlimited  unlimited  -",
                "tokens-per-team            unlimited  unlimited  -",
                "cost-per-turn-usd          unlimited  unlimited  -",
                "cost-per-agent-usd         unlimited  unlimited  -",
                "cost-per-team-usd          unlimited  unlimited  -",
                "tokens-per-team-per-day    5000000    5000000    -",
                "cost-per-team-per-day-usd  unlimited  unlimited  -",
                "",
                "CRON JOBS AGENTS CREATE  IN FORCE     SET BY",
                "approval                 ask          cohort.lead.model-cron-jobs",
                "jobs per team            10 (2 now)   cohort.scheduler.model-jobs.max-per-team",
                "min interval             10m          cohort.scheduler.model-jobs.min-interval",
                "all jobs per team        100 (3 now)  cohort.scheduler.max-jobs-per-team",
                "all jobs min interval    1m           cohort.scheduler.min-interval");
    }

    @Test
    void whenTheSchedulerCouldNotBeAskedTheTableSaysWhy() throws Exception {
        var cron = Json.MAPPER.readTree("""
                {"approval":"allow","scheduler":null,
                 "schedulerUnavailable":"scheduler-service at http://127.0.0.1:8082 did not answer: connection refused"}""");

        assertThat(BudgetCommand.cronTable(cron)).containsExactly(
                "CRON JOBS AGENTS CREATE  IN FORCE  SET BY",
                "approval                 allow     cohort.lead.model-cron-jobs",
                "(the scheduler's limits are unknown: scheduler-service at http://127.0.0.1:8082 did not answer:"
                        + " connection refused)");
    }
}
