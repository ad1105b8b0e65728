-- A2A tasks: a message another agent sent a team over A2A (POST /a2a/{team}) and the prompt that carries it. The task's
-- id is that prompt's id, derived from the team and the message's messageId, so a retried SendMessage finds this row and
-- starts no second turn. Its state is read from the prompt, the lead's turn, its approvals and its turn_completed
-- event; only what those do not hold is kept here: the context the sender named, the message as sent (the task's
-- history) and when a CancelTask asked for the end.
CREATE TABLE lead.a2a_tasks (
    team        TEXT        NOT NULL REFERENCES lead.teams (id),
    id          TEXT        NOT NULL,
    context_id  TEXT        NOT NULL,
    message_id  TEXT        NOT NULL,
    message     JSONB       NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    canceled_at TIMESTAMPTZ,
    PRIMARY KEY (team, id)
);
CREATE INDEX a2a_tasks_listed ON lead.a2a_tasks (team, created_at DESC, id);
