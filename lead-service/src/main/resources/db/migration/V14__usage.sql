-- The usage ledger: one row per stored assistant_message (every model call of every agent of the team: the lead's
-- own and the teammates' events the sequencer stores), written in the transaction that stores the event and keyed by
-- the event's id, so a redelivered event is counted once. The usage endpoint and the per-day budget read it.
CREATE TABLE lead.usage (
    event_id          TEXT             PRIMARY KEY,
    team              TEXT             NOT NULL,
    agent             TEXT             NOT NULL,
    turn_id           TEXT,
    prompt_id         TEXT,
    model             TEXT,
    ts                TIMESTAMPTZ      NOT NULL,
    day               DATE             NOT NULL,
    prompt_tokens     BIGINT           NOT NULL,
    completion_tokens BIGINT           NOT NULL,
    cached_tokens     BIGINT           NOT NULL,
    cost_usd          DOUBLE PRECISION NOT NULL
);
CREATE INDEX usage_team_ts ON lead.usage (team, ts);
CREATE INDEX usage_team_agent ON lead.usage (team, agent);
CREATE INDEX usage_team_turn ON lead.usage (team, turn_id);
