-- The shared agent host's tables (agent-host PgAgentStore, PgInbox, PgTranscriptStore), created in the service's own
-- schema: a service lists `classpath:db/agent-host` in quarkus.flyway.locations. (The lead's own tables predate this
-- file and have the same shape: lead.agents V2+V8+V9, lead.transcripts V4; its inbox is keyed by team alone.)

-- One row per hosted agent: the engine state (conversation = tool-call journal) saved after every step, fenced by
-- `version` (adopting bumps it); `status` is the phase (idle | working | waiting_approval | waiting_reply).
CREATE TABLE ${flyway:defaultSchema}.agents (
    team        TEXT        NOT NULL,
    name        TEXT        NOT NULL,
    state       JSONB       NOT NULL,
    version     BIGINT      NOT NULL DEFAULT 0,
    status      TEXT        NOT NULL DEFAULT 'idle',
    turn_id     TEXT,
    waiting_for TEXT,
    deadline    TIMESTAMPTZ,
    owner       TEXT,
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (team, name)
);
CREATE INDEX agents_deadline ON ${flyway:defaultSchema}.agents (deadline) WHERE deadline IS NOT NULL;

-- Each agent's inbox, deduped on message id; status received → injected (in a saved state) | routed (handled by the
-- host before injection, e.g. a protocol reply).
CREATE TABLE ${flyway:defaultSchema}.inbox (
    team        TEXT        NOT NULL,
    agent       TEXT        NOT NULL,
    id          TEXT        NOT NULL,
    seq         BIGSERIAL,
    sender      TEXT        NOT NULL,
    type        TEXT        NOT NULL,
    content     TEXT,
    metadata    JSONB       NOT NULL DEFAULT '{}',
    status      TEXT        NOT NULL DEFAULT 'received',
    received_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (team, agent, id)
);
CREATE INDEX inbox_pending ON ${flyway:defaultSchema}.inbox (team, agent, seq) WHERE status = 'received';

-- Full transcripts and oversized tool results, written before compaction drops them (s08). Write-once.
CREATE TABLE ${flyway:defaultSchema}.transcripts (
    agent_id   TEXT        NOT NULL,
    name       TEXT        NOT NULL,
    content    TEXT        NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (agent_id, name)
);
