-- #18 item 3: a team's own budgets per UTC day (tokens and USD of all its agents from 00:00 UTC on, counted in the
-- usage ledger lead.usage, V14). NULL = the configured default (cohort.engine.budgets.*-per-team-per-day*), 0 = unlimited.
ALTER TABLE lead.team_budgets
    ADD COLUMN tokens_per_team_per_day    BIGINT CHECK (tokens_per_team_per_day >= 0),
    ADD COLUMN cost_per_team_per_day_usd  DOUBLE PRECISION CHECK (cost_per_team_per_day_usd >= 0);
