-- Issue 15 (s16): the team protocols' requests, shutdown and plan approval. The seed kept them in a process-wide dict,
-- unlocked, never expired, with 6-digit ids (gaps 16-17); here one row per request with a UUID id (the requestId on
-- the wire). Every transition is ONE conditional UPDATE (status = 'pending' AND type AND the answering agent), so a
-- duplicate, late, mistyped or forged answer changes nothing and is refused with its reason.
CREATE TABLE lead.protocols (
    id          TEXT        PRIMARY KEY,
    team        TEXT        NOT NULL,
    type        TEXT        NOT NULL CHECK (type IN ('shutdown', 'plan_approval')),
    sender      TEXT        NOT NULL,                     -- who asked (the lead for a shutdown, the teammate for a plan)
    target      TEXT        NOT NULL,                     -- who must answer
    status      TEXT        NOT NULL DEFAULT 'pending'
                            CHECK (status IN ('pending', 'approved', 'rejected', 'expired')),
    payload     JSONB       NOT NULL DEFAULT '{}',        -- {reason} of a shutdown, {plan} of a plan approval
    feedback    TEXT,                                     -- the answer's reason / the reviewer's feedback
    decided_by  TEXT,                                     -- who decided (the teammate, the lead, a person, the sweep)
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    decided_at  TIMESTAMPTZ,
    deadline    TIMESTAMPTZ                               -- a pending request past it is expired by the lead's sweep
);
CREATE INDEX protocols_team ON lead.protocols (team, created_at);
CREATE INDEX protocols_pending_deadline ON lead.protocols (deadline) WHERE status = 'pending';
