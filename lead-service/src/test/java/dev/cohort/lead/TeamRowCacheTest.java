package dev.cohort.lead;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.lead.teams.TeamRepository;
import dev.cohort.lead.teams.TeamRow;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The team row the lead reads before every tool call (its permission mode) comes from {@link TeamRepository#cached}:
 * no query per call, a write through the repository applies at once, and a change made behind its back (by hand,
 * another replica) applies from the next fresh read, which every lead turn start makes (its hooks).
 */
@QuarkusTest
class TeamRowCacheTest {

    @Inject
    TeamRepository teams;

    @Inject
    AgroalDataSource ds;

    private void setModeBehindTheRepositorysBack(String team, String mode) throws Exception {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("UPDATE lead.teams SET permission_mode = ? WHERE id = ?")) {
            ps.setString(1, mode);
            ps.setString(2, team);
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
    }

    @Test
    void aCachedRowIsServedWithoutAQueryUntilTheNextFreshReadAndAWriteThroughTheRepositoryAppliesAtOnce()
            throws Exception {
        String team = "cache-" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(teams.cached(team)).as("an unknown team is not remembered as absent").isEmpty();
        assertThat(teams.insert(team, null, "default")).isTrue();
        assertThat(teams.cached(team)).map(TeamRow::permissionMode).contains("default");

        setModeBehindTheRepositorysBack(team, "plan");
        assertThat(teams.cached(team)).as("served from the cache: no query").map(TeamRow::permissionMode)
                .contains("default");
        assertThat(teams.find(team)).as("a fresh read (a turn start's)").map(TeamRow::permissionMode).contains("plan");
        assertThat(teams.cached(team)).as("refreshed by it").map(TeamRow::permissionMode).contains("plan");

        assertThat(teams.setHooks(team, "{\"PreToolUse\":[]}")).isTrue();
        setModeBehindTheRepositorysBack(team, "accept-edits");
        assertThat(teams.cached(team)).as("a write through the repository dropped the cached row")
                .map(TeamRow::permissionMode).contains("accept-edits");
        assertThat(teams.cached(team).orElseThrow().hooks()).contains("PreToolUse");
    }
}
