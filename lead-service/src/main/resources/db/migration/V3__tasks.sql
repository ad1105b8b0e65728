-- The task board (seed s12/s17): persistent work orders with dependencies, claims and leases.
-- Ids come from one sequence (gap 36: no collisions; creation order = id order, so "the first unblocked task"
-- is deterministic, gap 27). The API shows them as task_<n>.
CREATE TABLE lead.tasks (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    team         TEXT        NOT NULL REFERENCES lead.teams (id),
    subject      TEXT        NOT NULL,
    description  TEXT        NOT NULL DEFAULT '',
    status       TEXT        NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'in_progress', 'completed')),
    -- the holder: an agent name of this team; set exactly while in_progress (and kept once completed)
    owner        TEXT,
    -- proof of holding the claim: a teammate sends it back on heartbeat/complete/release, so a stale replica
    -- that lost its lease cannot act on a task someone else now holds (gaps 33, 35)
    lease_token  TEXT,
    -- NULL = no expiry (claims by the lead, which is durable and never disappears)
    lease_until  TIMESTAMPTZ,
    claimed_at   TIMESTAMPTZ,
    completed_at TIMESTAMPTZ,
    result       TEXT,
    claims       INT         NOT NULL DEFAULT 0,
    version      INT         NOT NULL DEFAULT 0,
    created_by   TEXT        NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (team, id),
    CHECK ((status = 'pending') = (owner IS NULL))
);
CREATE INDEX tasks_team_status ON lead.tasks (team, status, id);
CREATE INDEX tasks_leases ON lead.tasks (team, lease_until) WHERE status = 'in_progress';

-- blockedBy edges. Both ends in the same team (composite foreign keys); a dependency must exist before its
-- dependant (gap 23/37), and ids grow, so depends_on < task_id: the graph is acyclic by construction and the
-- database refuses any edge that could close a cycle, self-dependencies included.
CREATE TABLE lead.task_deps (
    team       TEXT   NOT NULL,
    task_id    BIGINT NOT NULL,
    depends_on BIGINT NOT NULL,
    PRIMARY KEY (task_id, depends_on),
    FOREIGN KEY (team, task_id) REFERENCES lead.tasks (team, id),
    FOREIGN KEY (team, depends_on) REFERENCES lead.tasks (team, id),
    CHECK (depends_on < task_id)
);
CREATE INDEX task_deps_depends_on ON lead.task_deps (depends_on);
