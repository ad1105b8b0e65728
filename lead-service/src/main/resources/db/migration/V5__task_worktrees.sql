-- s18: a task may be bound to a git worktree (its name; the tool runner owns the worktree itself). Whoever works on
-- the task works in that worktree.
ALTER TABLE lead.tasks ADD COLUMN worktree TEXT;
