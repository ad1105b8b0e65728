-- Issue 11 item 7: the first result of every side-effecting tool call that does not go through the tool runner
-- (create_task, claim_task, complete_task, memory_write, memory_delete), keyed by (agent, call id) and written in the
-- same transaction as the call's effect. A turn resumed after a crash between the effect and the save of its result
-- repeats the call; the repeat is answered from here instead of acting twice.
CREATE TABLE lead.tool_effects (
    key        UUID        PRIMARY KEY,            -- name-based UUID of agent_id || '/' || call_id (EffectKey.uuid)
    team       TEXT        NOT NULL,
    agent_id   TEXT        NOT NULL,               -- <team>/<name>
    call_id    TEXT        NOT NULL,               -- the model's tool-call id
    tool       TEXT        NOT NULL,
    digest     TEXT        NOT NULL,               -- SHA-256 of tool + canonical arguments: a reused id is refused
    result     TEXT        NOT NULL,               -- the text the model saw the first time
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
