package dev.cohort.lead.teams;

import java.time.Instant;

/**
 * A team as stored in {@code lead.teams}.
 *
 * @param hooks the team's command hooks as JSON in Claude Code's format ({@code null} = none)
 */
public record TeamRow(String id, String workspace, String permissionMode, Instant createdAt, String hooks) {

    public TeamRow(String id, String workspace, String permissionMode, Instant createdAt) {
        this(id, workspace, permissionMode, createdAt, null);
    }
}
