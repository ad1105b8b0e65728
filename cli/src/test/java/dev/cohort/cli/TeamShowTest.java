package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.protocol.Json;
import org.junit.jupiter.api.Test;

/** {@code cohort team show}: the agents of {@code GET /api/v1/teams/{team}/agents} as a table; what is not said prints as {@code -}. */
class TeamShowTest {

    @Test
    void eachAgentIsOneRowWithItsPhaseTaskTokenSumCostAndReplica() throws Exception {
        var agents = Json.MAPPER.readTree("""
                [{"name":"lead","role":"lead","status":"working","currentTask":null,
                  "usage":{"inputTokens":1200,"outputTokens":345,"calls":3,"costUsd":0.01234},"replica":"lead-1"},
                 {"name":"alice","role":"tester","status":"waiting_approval","currentTask":"task_3",
                  "usage":{"inputTokens":10,"outputTokens":5,"costUsd":0},"replica":"teammate-2","todos":[]},
                 {"name":"bob","role":"coder","status":"idle","currentTask":"task_12","usage":{"outputTokens":7},"replica":"teammate-1"}]""");
        assertThat(TeamCommand.Show.table(agents)).containsExactly(
                "NAME   ROLE    PHASE             CURRENT TASK  TOKENS  COST     REPLICA",
                "lead   lead    working           -             1545    $0.0123  lead-1",
                "alice  tester  waiting_approval  task_3        15      $0.0000  teammate-2",
                "bob    coder   idle              task_12       7       -        teammate-1");
    }

    @Test
    void anAgentWhoseCallsHadNoPriceShowsUnknownPriceNotZeroDollars() throws Exception {
        var agents = Json.MAPPER.readTree("""
                [{"name":"lead","role":"lead","status":"idle","usage":{"inputTokens":90,"outputTokens":10,"calls":2,
                  "costUsd":0,"unpricedCalls":2}},
                 {"name":"alice","role":"coder","status":"idle","usage":{"inputTokens":90,"outputTokens":10,"calls":3,
                  "costUsd":0.5,"unpricedCalls":1}}]""");
        assertThat(TeamCommand.Show.table(agents)).containsExactly(
                "NAME   ROLE   PHASE  CURRENT TASK  TOKENS  COST               REPLICA",
                "lead   lead   idle   -             100     unknown price      -",
                "alice  coder  idle   -             100     $0.5000 + unknown  -");
    }

    @Test
    void missingNullOrEmptyFieldsPrintAsADash() throws Exception {
        // today's lead-service: no currentTask, no replica, an empty usage for an idle lead; an agent that says nothing
        var agents = Json.MAPPER.readTree("""
                [{"name":"lead","role":"lead","status":"idle","turnId":null,"usage":{},"todos":[],"updatedAt":null},
                 {"name":"carol","role":"","status":"shutdown","currentTask":"","usage":null,"replica":null},
                 {}]""");
        assertThat(TeamCommand.Show.table(agents)).containsExactly(
                "NAME   ROLE  PHASE     CURRENT TASK  TOKENS  COST  REPLICA",
                "lead   lead  idle      -             -       -     -",
                "carol  -     shutdown  -             -       -     -",
                "-      -     -         -             -       -     -");
    }

    @Test
    void aTeamWithoutAgentsSaysSo() throws Exception {
        assertThat(TeamCommand.Show.table(Json.MAPPER.readTree("[]")))
                .containsExactly("NAME  ROLE  PHASE  CURRENT TASK  TOKENS  COST  REPLICA", "(no agents)");
    }
}
