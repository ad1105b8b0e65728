-- Issue 15 (s17 gap 38): a task may name the role or the one agent that should take it. NULL = anybody. Claim and
-- claim-next only hand such a task to a matching caller (the role and name come from the caller's host).
ALTER TABLE lead.tasks ADD COLUMN role TEXT;
ALTER TABLE lead.tasks ADD COLUMN assignee TEXT;
