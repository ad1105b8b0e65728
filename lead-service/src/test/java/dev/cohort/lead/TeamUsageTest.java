package dev.cohort.lead;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.engine.AgentState;
import dev.cohort.core.engine.Usage;
import dev.cohort.lead.persistence.AgentRepository;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A team's usage, for its budget, is the sum of what its agents' saved states say they used. */
@QuarkusTest
class TeamUsageTest {

    @Inject
    AgentRepository agents;

    private static String state(Usage u) {
        return new AgentState(AgentState.VERSION, List.of(), List.of(), 0, List.of(), u, null).toJson();
    }

    private static String team(String prefix) {
        String team = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        given().contentType("application/json").body(Map.of("id", team)).post("/api/v1/teams").then().statusCode(201);
        return team;
    }

    @Test
    void aTeamsUsageSumsTheLatestSavedUsageOfEachOfItsAgentsAndNoOtherTeams() {
        String team = team("usage");
        String other = team("usage-other");
        agents.adopt(team, "lead", state(new Usage(100, 50, 2, 0.25)), "test-host");
        AgentRepository.AgentRow alice = agents.adopt(team, "alice", state(new Usage(1000, 500, 5, 0.5)), "test-host");
        agents.adopt(other, "lead", state(new Usage(7, 7, 7, 7)), "test-host");
        assertThat(agents.teamUsage(team)).isEqualTo(new Usage(1100, 550, 7, 0.75));

        // a later save of one agent is what counts, not its earlier state
        agents.save(team, "alice", state(new Usage(3000, 1000, 9, 1.5)), "running", "turn-1", alice.version(),
                List.of(), List.of());
        assertThat(agents.teamUsage(team)).isEqualTo(new Usage(3100, 1050, 11, 1.75));
        assertThat(agents.teamUsage(other)).isEqualTo(new Usage(7, 7, 7, 7));
    }

    @Test
    void aTeamWithoutAgentsHasUsedNothing() {
        assertThat(agents.teamUsage(team("usage-empty"))).isEqualTo(Usage.ZERO);
        assertThat(agents.teamUsage("no-such-team-" + UUID.randomUUID())).isEqualTo(Usage.ZERO);
    }
}
