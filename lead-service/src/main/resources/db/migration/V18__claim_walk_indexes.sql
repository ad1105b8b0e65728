-- Issue 15 item 7: claim-batch's candidates statement must not depend on how current lead.tasks' statistics are. A
-- board is filled and claimed within seconds, long before autoanalyze, and the stale statistics (every task pending)
-- made the planner (a) walk tasks_pkey in id order for the pending tasks, filtering out other teams' and claimed rows,
-- and (b) probe tasks_leases on team alone for each claimer's held task (65 ms per batch at 1,000 claimed, 2026-12-02).

-- (a) The pending walk: exactly its predicate and its order, so no other index can be cheaper under any statistics.
CREATE INDEX tasks_pending ON lead.tasks (team, id) WHERE status = 'pending';

-- (b) tasks_leases serves only the expired-lease walks, which all say lease_until < now() (a strict comparison, so
-- PostgreSQL proves lease_until IS NOT NULL from it); the held-task probe names no lease_until, so it can no longer
-- pick this index and is left with tasks_holders (team, owner, lease_token), which matches all of its conditions.
-- Lead claims (lease_until NULL, never expire) no longer sit in it either.
DROP INDEX lead.tasks_leases;
CREATE INDEX tasks_leases ON lead.tasks (team, lease_until) WHERE status = 'in_progress' AND lease_until IS NOT NULL;
