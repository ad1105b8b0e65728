-- Teams: the unit of collaboration (ARCHITECTURE §2). `default` exists from the start.
CREATE TABLE lead.teams (
    id              TEXT PRIMARY KEY,
    workspace       TEXT,
    permission_mode TEXT        NOT NULL DEFAULT 'default',
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
INSERT INTO lead.teams (id, workspace) VALUES ('default', NULL);

-- Prompts seen by this team's lead; the primary key makes Kafka redelivery and retried POSTs harmless.
CREATE TABLE lead.prompts (
    team        TEXT        NOT NULL REFERENCES lead.teams (id),
    id          TEXT        NOT NULL,
    text        TEXT        NOT NULL,
    source      TEXT        NOT NULL,
    status      TEXT        NOT NULL DEFAULT 'received',
    received_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (team, id)
);

-- Per-team event sequence: one row per team, bumped in the same transaction as the event insert.
CREATE TABLE lead.event_seq (
    team TEXT PRIMARY KEY,
    seq  BIGINT NOT NULL
);

-- The observable event stream, stored so SSE can replay from any sequence number on any replica.
CREATE TABLE lead.events (
    team  TEXT        NOT NULL,
    seq   BIGINT      NOT NULL,
    id    TEXT        NOT NULL UNIQUE,
    agent TEXT,
    ts    TIMESTAMPTZ NOT NULL,
    type  TEXT        NOT NULL,
    data  JSONB       NOT NULL,
    PRIMARY KEY (team, seq)
);
