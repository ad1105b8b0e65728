-- Hardening item 5: a team's command hooks, in Claude Code's settings format ({"PreToolUse": [{"matcher", "hooks": [...]}], ...}),
-- validated by the API. NULL = none.
ALTER TABLE lead.teams ADD COLUMN hooks JSONB;
