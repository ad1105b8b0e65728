-- Issue 15 (s16.3): a teammate's plan gate, enforced by its host. While closed, every mutating tool call is refused
-- ("plan approval required — call submit_plan"). A teammate spawned with plan_mode starts closed (no row: the gate
-- follows plan_mode); request_plan closes it, an approved plan opens it. A row belongs to one spawn: a restart (a new
-- spawn_message_id) starts from plan_mode again. Kept here, not in memory, so the gate survives a failover.
CREATE TABLE teammate.plan_gates (
    team             TEXT        NOT NULL,
    name             TEXT        NOT NULL,
    spawn_message_id TEXT        NOT NULL,
    state            TEXT        NOT NULL CHECK (state IN ('closed', 'open')),
    request_id       TEXT,                    -- the approved plan (open) / the last plan submitted (closed)
    updated_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (team, name)
);
