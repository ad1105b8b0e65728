-- Issue 14: the team's teammates as the lead knows them (ARCHITECTURE §4.3, contract §5). A row is written when the
-- lead's spawn_teammate succeeds (phase `starting`, in the transaction that records the call's result) and updated
-- from every stored teammate_spawned / teammate_phase event (in the transaction that stores the event, so the roster
-- and the event log never disagree), and turn_started / turn_completed of the teammate (its turn id). Teammates are
-- hosted by teammate-service; this is a projection, not their state.
CREATE TABLE lead.roster (
    team         TEXT        NOT NULL,
    name         TEXT        NOT NULL,
    role         TEXT,
    plan_mode    BOOLEAN     NOT NULL DEFAULT false,
    phase        TEXT        NOT NULL DEFAULT 'starting', -- starting | working | idle | waiting_approval | waiting_reply | shutdown
    reason       TEXT,                                    -- why the last phase (e.g. a shutdown's reason)
    current_task TEXT,
    turn_id      TEXT,
    usage        JSONB       NOT NULL DEFAULT '{}',       -- {inputTokens, outputTokens, costUsd} as the teammate reported
    replica      TEXT,                                    -- the teammate-service instance hosting it
    spawned_at   TIMESTAMPTZ NOT NULL DEFAULT now(),      -- the last spawn (or restart) the lead recorded
    updated_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (team, name)
);
