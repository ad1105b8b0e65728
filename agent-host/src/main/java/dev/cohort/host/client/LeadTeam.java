package dev.cohort.host.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * The team as lead-service's internal API gives it to a teammate host ({@code GET /internal/v1/teams/{team}}).
 *
 * @param id             the team id
 * @param permissionMode the team's permission mode's wire name ({@code default}, {@code plan}, …)
 * @param budgets        the team's own budgets over {@code cohort.engine.budgets.*} ({@code null}: none, or a lead
 *                       before budgets)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record LeadTeam(String id, String permissionMode, dev.cohort.core.engine.Budgets.Overrides budgets) {
}
