-- Memories of a team (s09): the engine's MemoryStore, one row per (team, name).
CREATE TABLE lead.memories (
    team        TEXT        NOT NULL,
    name        TEXT        NOT NULL,
    type        TEXT        NOT NULL,
    description TEXT        NOT NULL,
    body        TEXT        NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (team, name)
);

