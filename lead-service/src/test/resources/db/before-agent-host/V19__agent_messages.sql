-- Issue 13, fix 5 (delta saves): each agent's conversation in a table of its own, one row per message, so a save
-- appends the step's new messages instead of rewriting the whole state (PgAgentStore). `agents.state` keeps the rest
-- of the engine state plus `messageCount`. A deleted agent row takes its messages with it. (The same migration for
-- the shared host's schemas, e.g. teammate: agent-host's db/agent-host/V101__agent_messages.sql.)
CREATE TABLE lead.agent_messages (
    team    TEXT    NOT NULL,
    name    TEXT    NOT NULL,
    idx     INTEGER NOT NULL,
    message JSONB   NOT NULL,
    PRIMARY KEY (team, name, idx),
    FOREIGN KEY (team, name) REFERENCES lead.agents (team, name) ON DELETE CASCADE
);

-- Existing agents resume with their whole conversation: the messages move out of the state, in order (idx from 0).
INSERT INTO lead.agent_messages (team, name, idx, message)
SELECT a.team, a.name, (m.ord - 1)::int, m.message
FROM lead.agents a
CROSS JOIN LATERAL jsonb_array_elements(a.state->'messages') WITH ORDINALITY AS m(message, ord)
WHERE jsonb_typeof(a.state->'messages') = 'array';

UPDATE lead.agents
SET state = (state - 'messages') || jsonb_build_object('messageCount',
        CASE WHEN jsonb_typeof(state->'messages') = 'array' THEN jsonb_array_length(state->'messages') ELSE 0 END)
WHERE state->'messageCount' IS NULL;
