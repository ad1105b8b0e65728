-- Issue 15 item 7: a claim (claim-next, claim-batch) first looks for the task its caller already holds with its lease
-- token (a retried claim gets the same task back). Without this index that lookup walked every in-progress task of
-- the team (tasks_team_status), on every claim; now it is one probe per claimer.
CREATE INDEX tasks_holders ON lead.tasks (team, owner, lease_token) WHERE status = 'in_progress';
