-- Parked phases (issue #12): `status` is the agent's phase (idle | working | waiting_approval | waiting_reply),
-- `waiting_for` the approval or protocol request a parked agent waits for, `deadline` when an idle agent is woken
-- without input. Written by the shared host's fenced store (agent-host PgAgentStore) with the state itself.
ALTER TABLE lead.agents ADD COLUMN waiting_for TEXT;
ALTER TABLE lead.agents ADD COLUMN deadline TIMESTAMPTZ;
