package dev.cohort.lead;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.engine.AgentState;
import dev.cohort.core.engine.Usage;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.host.AgentRecord;
import dev.cohort.host.store.InputLedger;
import dev.cohort.host.store.PgAgentStore;
import dev.cohort.lead.teams.AgentRepository;
import io.agroal.api.AgroalDataSource;
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

    @Inject
    AgroalDataSource ds;

    private static AgentState state(Usage u) {
        return new AgentState(AgentState.VERSION, List.of(), List.of(), 0, List.of(), u, null);
    }

    /** Creates the agent with {@code usage} saved, as a host does at its first step. */
    private AgentRecord saved(PgAgentStore store, String team, String name, Usage usage) {
        AgentKey key = new AgentKey(team, name);
        AgentRecord r = store.adopt(key, "test-host");
        long v = store.save(key, state(usage), r.version(), List.of());
        return new AgentRecord(key, state(usage), null, v);
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
        PgAgentStore store = new PgAgentStore(ds, "lead", InputLedger.NONE);
        saved(store, team, "lead", new Usage(100, 50, 2, 0.25));
        AgentRecord alice = saved(store, team, "alice", new Usage(1000, 500, 5, 0.5));
        saved(store, other, "lead", new Usage(7, 7, 7, 7));
        assertThat(agents.teamUsage(team)).isEqualTo(new Usage(1100, 550, 7, 0.75));

        // a later save of one agent is what counts, not its earlier state
        store.save(alice.key(), state(new Usage(3000, 1000, 9, 1.5)), alice.version(), List.of());
        assertThat(agents.teamUsage(team)).isEqualTo(new Usage(3100, 1050, 11, 1.75));
        assertThat(agents.teamUsage(other)).isEqualTo(new Usage(7, 7, 7, 7));
    }

    @Test
    void aTeamWithoutAgentsHasUsedNothing() {
        assertThat(agents.teamUsage(team("usage-empty"))).isEqualTo(Usage.ZERO);
        assertThat(agents.teamUsage("no-such-team-" + UUID.randomUUID())).isEqualTo(Usage.ZERO);
    }
}
