-- A team's MCP servers set over the API (GET/PUT /api/v1/teams/{team}/mcp), in the shape of Claude Code's .mcp.json:
-- {"<name>": {"command", "args", "env", "agents"} | {"type": "http", "url", "headers", "agents"}}, validated before they
-- are stored. Values of env and headers are stored as sent: references to variables, resolved by the tool runner, or the
-- secret itself, which the public API never shows again. One row per team that set any. Read by the lead at every turn
-- start and by teammate hosts over the internal API (GET /internal/v1/teams/{team}); the workspace's
-- .cohort/settings.json adds its own servers, which are read from the file, never stored here.
CREATE TABLE lead.team_mcp_servers (
    team       TEXT PRIMARY KEY REFERENCES lead.teams (id),
    servers    JSONB NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
