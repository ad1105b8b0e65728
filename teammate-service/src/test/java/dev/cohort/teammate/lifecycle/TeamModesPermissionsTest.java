package dev.cohort.teammate.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.engine.permission.PermissionRuleSet;
import dev.cohort.core.mcp.McpServerConfig;
import dev.cohort.host.client.LeadTeam;
import dev.cohort.host.client.LeadUnavailableException;
import dev.cohort.host.client.StubLead;
import dev.cohort.teammate.agent.TeammateProgram;
import dev.cohort.teammate.config.TeammateConfig;
import dev.cohort.teammate.lifecycle.TeamModes;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A teammate host's view of its team's permission rules and MCP servers: read with the mode from the lead's internal API
 * ({@code GET /internal/v1/teams/{team}}; lead-service's {@code TeamPermissionsTest} checks that answer), handed to the
 * teammate's engine at every turn start ({@code TeammateProgram}), and kept while the lead cannot be read.
 */
class TeamModesPermissionsTest {

    static final PermissionRuleSet RULES = new PermissionRuleSet(List.of("Bash(npm test)"), List.of("Edit(src/**)"),
            List.of("Bash(curl:*)"));

    static final Map<String, McpServerConfig> SERVERS = Map.of("github", new McpServerConfig("github", "http", null, null,
            null, "https://api.githubcopilot.com/mcp/", Map.of("Authorization", "Bearer s3cret"), null, "api"));

    StubLead lead;
    TeamModes modes;

    @BeforeEach
    void setUp() {
        lead = new StubLead(team -> new LeadTeam(team, "default", null, null, null, RULES, SERVERS));
        modes = new TeamModes();
        modes.lead = lead;
        // a value read is trusted for the whole test: only reread() (and the first call) asks the lead, so no
        // background read races the test's
        modes.config = (TeammateConfig) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {TeammateConfig.class}, (proxy, method, args) -> {
                    if (method.getName().equals("modeRefresh")) {
                        return Duration.ofHours(1);
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void theTeamsRulesComeWithTheModeAndAreKeptWhileTheLeadIsAway() {
        assertThat(modes.permissions("t1")).isEqualTo(RULES);

        // the lead cannot be read: the last rules read stay (a deny is not dropped while it is away)
        lead.answer(team -> {
            throw new LeadUnavailableException("lead-service unreachable", null);
        });
        assertThat(modes.reread("t1")).isFalse();
        assertThat(modes.permissions("t1")).isEqualTo(RULES);

        // changed on the lead: the next read has them
        lead.answer(team -> new LeadTeam(team, "default", null, null, null, PermissionRuleSet.EMPTY));
        assertThat(modes.reread("t1")).isTrue();
        assertThat(modes.permissions("t1")).isEqualTo(PermissionRuleSet.EMPTY);
    }

    @Test
    void theTeamsMcpServersComeWholeWithTheModeAndAreKeptWhileTheLeadIsAway() {
        assertThat(modes.mcpServers("t3")).isEqualTo(SERVERS);

        lead.answer(team -> {
            throw new LeadUnavailableException("lead-service unreachable", null);
        });
        assertThat(modes.reread("t3")).isFalse();
        assertThat(modes.mcpServers("t3")).isEqualTo(SERVERS);

        // removed on the lead: the next read has none
        lead.answer(team -> new LeadTeam(team, "default", null, null, null, RULES, Map.of()));
        assertThat(modes.reread("t3")).isTrue();
        assertThat(modes.mcpServers("t3")).isEmpty();
        assertThat(modes.permissions("t3")).isEqualTo(RULES);
    }

    @Test
    void aLeadBeforeTeamRulesMeansNoRules() {
        lead.answer(team -> new LeadTeam(team, "plan", null));
        assertThat(modes.permissions("t2")).isEqualTo(PermissionRuleSet.EMPTY);
        assertThat(modes.mcpServers("t2")).isEmpty();
        assertThat(modes.of("t2").wire()).isEqualTo("plan");
    }
}
