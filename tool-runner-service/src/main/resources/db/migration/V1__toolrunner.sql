-- tool-runner-service schema: every executed call, background jobs, worktrees and their audit trail.

-- One row per (team, agent, callId): the proof that each tool ran once, and the stored answer to a repeated call.
CREATE TABLE toolrunner.tool_calls (
    team        TEXT        NOT NULL,
    agent       TEXT        NOT NULL,
    call_id     TEXT        NOT NULL,
    tool        TEXT        NOT NULL,
    args_hash   TEXT        NOT NULL,
    cwd         TEXT,
    status      TEXT        NOT NULL CHECK (status IN ('running', 'done', 'interrupted')),
    instance_id TEXT        NOT NULL,
    started_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at TIMESTAMPTZ,
    duration_ms BIGINT,
    exit_code   INTEGER,
    error       TEXT,
    result      JSONB,
    PRIMARY KEY (team, agent, call_id)
);
CREATE INDEX tool_calls_running ON toolrunner.tool_calls (instance_id) WHERE status = 'running';

CREATE TABLE toolrunner.background_jobs (
    id          TEXT PRIMARY KEY,
    team        TEXT        NOT NULL,
    agent       TEXT        NOT NULL,
    call_id     TEXT        NOT NULL,
    command     TEXT        NOT NULL,
    cwd         TEXT,
    status      TEXT        NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'timed_out', 'cancelled')),
    exit_code   INTEGER,
    error       TEXT,
    summary     TEXT,
    output_ref  TEXT        NOT NULL,
    instance_id TEXT        NOT NULL,
    started_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at TIMESTAMPTZ,
    duration_ms BIGINT,
    notified_at TIMESTAMPTZ
);
CREATE INDEX background_jobs_running ON toolrunner.background_jobs (instance_id) WHERE status = 'running';
CREATE INDEX background_jobs_unnotified ON toolrunner.background_jobs (finished_at)
    WHERE status <> 'running' AND notified_at IS NULL;

-- Live worktrees: the base commit recorded at creation is what "unmerged commits" are counted against.
CREATE TABLE toolrunner.worktrees (
    team        TEXT        NOT NULL,
    name        TEXT        NOT NULL,
    branch      TEXT        NOT NULL,
    base_commit TEXT        NOT NULL,
    path        TEXT        NOT NULL,
    task_id     TEXT,
    status      TEXT        NOT NULL CHECK (status IN ('active', 'kept')),
    created_by  TEXT        NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (team, name)
);

-- Append-only audit of create / remove / keep (the tutorial's events.jsonl).
CREATE TABLE toolrunner.worktree_events (
    id          BIGSERIAL PRIMARY KEY,
    team        TEXT        NOT NULL,
    name        TEXT        NOT NULL,
    event       TEXT        NOT NULL CHECK (event IN ('create', 'remove', 'keep')),
    task_id     TEXT,
    base_commit TEXT,
    agent       TEXT,
    detail      TEXT,
    at          TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX worktree_events_team ON toolrunner.worktree_events (team, name, at);
