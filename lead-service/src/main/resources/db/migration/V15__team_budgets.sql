-- #18 item 3: a team's own budgets over the cohort.engine.budgets.* defaults (PUT /api/v1/teams/{team}/budgets).
-- One row per team that set any; a NULL column = the configured default, 0 = unlimited. Read by the lead at every
-- step and by teammate hosts over the internal API (GET /internal/v1/teams/{team}).
CREATE TABLE lead.team_budgets (
    team               TEXT PRIMARY KEY REFERENCES lead.teams (id),
    tokens_per_turn    BIGINT CHECK (tokens_per_turn >= 0),
    tokens_per_agent   BIGINT CHECK (tokens_per_agent >= 0),
    tokens_per_team    BIGINT CHECK (tokens_per_team >= 0),
    cost_per_turn_usd  DOUBLE PRECISION CHECK (cost_per_turn_usd >= 0),
    cost_per_agent_usd DOUBLE PRECISION CHECK (cost_per_agent_usd >= 0),
    cost_per_team_usd  DOUBLE PRECISION CHECK (cost_per_team_usd >= 0),
    updated_at         TIMESTAMPTZ NOT NULL DEFAULT now()
);
