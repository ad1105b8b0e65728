-- Cron jobs of every team. One row per job; the row is the unit of the exactly-once claim:
-- a replica locks due rows with FOR UPDATE SKIP LOCKED, publishes, then advances next_fire_at
-- (or deletes a finished one-shot) in the same transaction.
CREATE TABLE scheduler.cron_job (
    id             text        PRIMARY KEY,
    team           text        NOT NULL,
    target         text        NOT NULL,            -- 'lead' or a teammate name
    cron           text        NOT NULL,
    prompt         text        NOT NULL,
    recurring      boolean     NOT NULL,
    durable        boolean     NOT NULL,
    timezone       text        NOT NULL,
    missed_policy  text        NOT NULL CHECK (missed_policy IN ('skip', 'fire-once')),
    created_by     text        NOT NULL,
    created_at     timestamptz NOT NULL,
    -- non-durable jobs only: the replica whose lifetime bounds the job
    owner_instance text        CHECK (durable = (owner_instance IS NULL)),
    next_fire_at   timestamptz NOT NULL,
    last_fired_at  timestamptz,
    fire_count     bigint      NOT NULL DEFAULT 0
);

-- the poller's only query: due rows in due order
CREATE INDEX cron_job_next_fire_at ON scheduler.cron_job (next_fire_at);
CREATE INDEX cron_job_team ON scheduler.cron_job (team, created_at);
CREATE INDEX cron_job_owner ON scheduler.cron_job (owner_instance) WHERE owner_instance IS NOT NULL;

-- Live scheduler replicas (heartbeats); a replica silent past the lease loses its non-durable jobs.
CREATE TABLE scheduler.instance (
    id           text        PRIMARY KEY,
    started_at   timestamptz NOT NULL,
    heartbeat_at timestamptz NOT NULL
);
