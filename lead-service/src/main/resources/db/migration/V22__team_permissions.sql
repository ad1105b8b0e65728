-- A team's permission rules set over the API (GET/PUT /api/v1/teams/{team}/permissions), in Claude Code's syntax:
-- {"allow": [...], "ask": [...], "deny": [...]}, validated before they are stored. One row per team that set any. Read
-- by the lead at every turn start and by teammate hosts over the internal API (GET /internal/v1/teams/{team}); the
-- workspace's .cohort/settings.json adds its own rules, which are read from the file, never stored here.
CREATE TABLE lead.team_permissions (
    team       TEXT PRIMARY KEY REFERENCES lead.teams (id),
    rules      JSONB NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
