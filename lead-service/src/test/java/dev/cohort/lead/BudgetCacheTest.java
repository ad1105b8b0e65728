package dev.cohort.lead;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.engine.Budgets;
import dev.cohort.lead.budgets.BudgetRepository;
import dev.cohort.lead.budgets.TeamBudgets;
import dev.cohort.lead.teams.TeamRepository;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The budget overrides the lead checks twice per model call come from {@link BudgetRepository#cached}: no
 * query per check, a write through the repository (the budgets API) applies at once, a change made behind its back
 * (another replica, by hand) once {@code cohort.lead.budget-cache-ttl} has passed, and {@link BudgetRepository#find}
 * (the APIs) always reads the table.
 */
@QuarkusTest
class BudgetCacheTest {

    @Inject
    BudgetRepository budgets;

    @Inject
    TeamBudgets teamBudgets;

    @Inject
    TeamRepository teams;

    @Inject
    AgroalDataSource ds;

    @ConfigProperty(name = "cohort.lead.budget-cache-ttl")
    Duration ttl;

    /** The cache's clock, moved by hand so the test needs no sleep. */
    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    @AfterEach
    void realClock() {
        budgets.useTicker(null);
    }

    private void setTurnTokensBehindTheRepositorysBack(String team, long tokens) throws Exception {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "UPDATE lead.team_budgets SET tokens_per_turn = ? WHERE team = ?")) {
            ps.setLong(1, tokens);
            ps.setString(2, team);
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
    }

    private static Budgets.Overrides turnTokens(long tokens) {
        return new Budgets.Overrides(tokens, null, null, null, null, null, null, null);
    }

    @Test
    void overridesAreServedFromMemoryUntilAWriteHereOrTheTtlAndTheApisReadTheTable() throws Exception {
        budgets.useTicker(now::get);
        String team = "bcache-" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(teams.insert(team, null, "default")).isTrue();
        assertThat(teamBudgets.overrides(team)).as("no overrides yet").isEqualTo(Budgets.Overrides.NONE);

        budgets.save(team, turnTokens(1000));
        assertThat(teamBudgets.overrides(team)).as("a write through the repository applies at once")
                .isEqualTo(turnTokens(1000));

        setTurnTokensBehindTheRepositorysBack(team, 2000);
        assertThat(teamBudgets.overrides(team)).as("served from memory: no query").isEqualTo(turnTokens(1000));
        now.addAndGet(ttl.toNanos() - 1);
        assertThat(teamBudgets.overrides(team)).as("still within the ttl").isEqualTo(turnTokens(1000));
        now.addAndGet(1);
        assertThat(teamBudgets.overrides(team)).as("another replica's change, once the ttl passed")
                .isEqualTo(turnTokens(2000));

        setTurnTokensBehindTheRepositorysBack(team, 3000);
        assertThat(budgets.find(team)).as("the APIs read the table").isEqualTo(turnTokens(3000));
        assertThat(teamBudgets.overrides(team)).as("and refresh the cache").isEqualTo(turnTokens(3000));
    }
}
