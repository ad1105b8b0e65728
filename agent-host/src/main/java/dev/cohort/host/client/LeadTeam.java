package dev.cohort.host.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.cohort.core.engine.Budgets;
import dev.cohort.core.engine.permission.PermissionRuleSet;
import dev.cohort.core.engine.Usage;
import dev.cohort.core.mcp.McpServerConfig;
import java.time.LocalDate;
import java.util.Map;

/**
 * The team as lead-service's internal API gives it to a teammate host ({@code GET /internal/v1/teams/{team}}).
 *
 * @param id             the team id
 * @param permissionMode the team's permission mode's wire name ({@code default}, {@code plan}, …)
 * @param budgets        the team's own budgets over {@code cohort.engine.budgets.*} ({@code null}: none, or a lead
 *                       before budgets)
 * @param usageToday     the team's usage in the UTC day {@code usageDay} (the lead's usage ledger from 00:00 UTC to
 *                       the read; {@code null}: a lead before per-day budgets)
 * @param usageDay       the UTC day of {@code usageToday}
 * @param permissions    the team's permission rules set through the API ({@code PUT …/permissions}), which its
 *                       teammates follow like the lead; {@code null}: none, or a lead before team rules
 * @param mcpServers     the team's own MCP servers set through the API ({@code PUT …/mcp}), by name, whole (secrets
 *                       included: the tool runner resolves {@code ${VAR}} and uses the rest as written); {@code null}:
 *                       none, or a lead before team MCP servers
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record LeadTeam(String id, String permissionMode, Budgets.Overrides budgets,
        Usage usageToday, LocalDate usageDay, PermissionRuleSet permissions,
        Map<String, McpServerConfig> mcpServers) {

    /** A team without the day's usage (a lead before per-day budgets). */
    public LeadTeam(String id, String permissionMode, Budgets.Overrides budgets) {
        this(id, permissionMode, budgets, null, null, null, null);
    }

    /** A team without permission rules (a lead before team rules). */
    public LeadTeam(String id, String permissionMode, Budgets.Overrides budgets,
            Usage usageToday, LocalDate usageDay) {
        this(id, permissionMode, budgets, usageToday, usageDay, null, null);
    }

    /** A team without MCP servers (a lead before team MCP servers). */
    public LeadTeam(String id, String permissionMode, Budgets.Overrides budgets,
            Usage usageToday, LocalDate usageDay, PermissionRuleSet permissions) {
        this(id, permissionMode, budgets, usageToday, usageDay, permissions, null);
    }

    /** The day's usage as the budget check reads it; {@code null} when the lead did not send it. */
    public Budgets.DayUsage dayUsage() {
        return usageToday == null || usageDay == null ? null
                : new Budgets.DayUsage(usageDay, usageToday);
    }
}
