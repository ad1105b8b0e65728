-- Issue 15: the task a teammate holds (claimed automatically when idle, or with claim_task), its lease token (the
-- proof the lead checks on heartbeat and complete_task) and its worktree (the host's cwd for the teammate's tool calls,
-- s18). Persisted with the teammate, so a replica that adopts it after a failover keeps the binding. Cleared by
-- complete_task, a lost lease, or a release.
ALTER TABLE teammate.teammates ADD COLUMN current_task TEXT;
ALTER TABLE teammate.teammates ADD COLUMN lease_token TEXT;
ALTER TABLE teammate.teammates ADD COLUMN worktree TEXT;
