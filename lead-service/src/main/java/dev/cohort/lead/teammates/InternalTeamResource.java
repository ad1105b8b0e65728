package dev.cohort.lead.teammates;

import dev.cohort.core.engine.Budgets;
import dev.cohort.core.engine.permission.PermissionRuleSet;
import dev.cohort.core.engine.Usage;
import dev.cohort.core.mcp.McpServerConfig;
import dev.cohort.lead.budgets.BudgetRepository;
import dev.cohort.lead.budgets.TeamBudgets;
import dev.cohort.lead.teams.McpServerRepository;
import dev.cohort.lead.teams.PermissionRepository;
import dev.cohort.lead.teams.TeamRepository;
import dev.cohort.lead.web.ApiException;
import jakarta.inject.Inject;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import java.time.LocalDate;
import java.util.Map;

/**
 * What a teammate host needs of its team, behind {@code cohort.internal.token}: {@code GET /internal/v1/teams/{team}}
 * → {@code {id, permissionMode, budgets, usageToday, usageDay, permissions, mcpServers}} ({@code budgets}: the team's own
 * budget overrides, only the fields it set; {@code permissions}: the team's own permission rules, {@code {allow, ask,
 * deny}}; {@code mcpServers}: the team's own MCP servers by name, whole — secrets included, which only this
 * bearer-protected API hands out, to the hosts whose tool runner starts or calls the servers;
 * {@code usageToday}: the team's usage in the UTC day {@code usageDay} from the usage ledger, for the per-day team
 * budget — one indexed SUM per read, and a teammate host reads at most once per team per
 * {@code cohort.teammate.mode-refresh}). The team is lead-service's data (ARCHITECTURE §3.2): teammates follow the team's
 * permission mode (a team in {@code plan} mode is read-only for its teammates too) without reading the lead's schema.
 */
@Path("/internal/v1/teams/{team}")
@Produces(MediaType.APPLICATION_JSON)
public class InternalTeamResource {

    /** The team as a teammate host sees it. */
    public record TeamInfo(String id, String permissionMode, Budgets.Overrides budgets,
            Usage usageToday, LocalDate usageDay, PermissionRuleSet permissions,
            Map<String, McpServerConfig> mcpServers) {
    }

    @Inject
    PermissionRepository permissions;

    @Inject
    McpServerRepository mcpServers;

    @Inject
    TeamRepository teams;

    @Inject
    BudgetRepository budgets;

    @Inject
    TeamBudgets teamBudgets;

    @GET
    public TeamInfo get(@PathParam("team") String team) {
        return teams.find(team).map(t -> {
            Budgets.DayUsage today = teamBudgets.dayUsage(t.id());
            return new TeamInfo(t.id(), t.permissionMode() == null ? "default" : t.permissionMode(),
                    budgets.find(t.id()), today.usage(), today.day(), permissions.find(t.id()),
                    mcpServers.find(t.id()));
        }).orElseThrow(() -> ApiException.notFound("unknown team \"" + team + "\""));
    }
}
