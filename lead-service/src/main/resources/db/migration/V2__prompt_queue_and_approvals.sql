-- Prompts are queued here by the owning replica; arrival order is `seq`. Status: received → running (started a
-- turn) | injected (added to a running turn at its next step) → done | failed.
ALTER TABLE lead.prompts ADD COLUMN seq BIGSERIAL;
ALTER TABLE lead.prompts ADD COLUMN turn_id TEXT;
CREATE INDEX prompts_pending ON lead.prompts (team, seq) WHERE status = 'received';

-- Approval requests (ARCHITECTURE §3.4). The id is derived from (team, agent, turn, call), so a resumed turn
-- waits on the same request instead of asking twice.
CREATE TABLE lead.approvals (
    id          TEXT PRIMARY KEY,
    team        TEXT        NOT NULL,
    agent       TEXT        NOT NULL,
    turn_id     TEXT,
    call_id     TEXT,
    tool        TEXT        NOT NULL,
    args        JSONB       NOT NULL,
    reason      TEXT,
    status      TEXT        NOT NULL DEFAULT 'pending',
    answer      TEXT,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at  TIMESTAMPTZ NOT NULL,
    resolved_at TIMESTAMPTZ
);
CREATE INDEX approvals_by_team ON lead.approvals (team, status, created_at);
