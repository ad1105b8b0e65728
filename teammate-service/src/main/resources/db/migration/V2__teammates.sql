-- The teammate-service's registry of teammates (issue #14): one row per teammate ever spawned in a team, readable by
-- every replica (recipient checks of send_message, broadcasts, the consumer's "unknown teammate" check). The engine
-- state lives in teammate.agents (agent-host's V100); this row holds what the lifecycle needs.
CREATE TABLE teammate.teammates (
    team             TEXT        NOT NULL,
    name             TEXT        NOT NULL,
    role             TEXT        NOT NULL,
    plan_mode        BOOLEAN     NOT NULL DEFAULT FALSE,
    -- active: hosted (working or idle); shutdown: stopped, not woken by messages until a spawn restarts it
    lifecycle        TEXT        NOT NULL DEFAULT 'active' CHECK (lifecycle IN ('active', 'shutdown')),
    shutdown_reason  TEXT,
    -- the spawn that created or last restarted it: a redelivered spawn with this id is a no-op
    spawn_message_id TEXT        NOT NULL,
    -- when an idle teammate shuts down (set when a turn ends, cleared when one starts): kept across wake-ups
    idle_deadline    TIMESTAMPTZ,
    spawned_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (team, name)
);

-- replaced by teammate.inbox (agent-host's V100), which keeps the whole message
DROP TABLE teammate.inbox_seen;
