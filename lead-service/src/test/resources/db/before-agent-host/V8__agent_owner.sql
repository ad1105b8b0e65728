-- Fencing (issue #12): adopting an agent bumps its `version` in the same statement that records the adopting
-- replica here, so only the newest owner can save; an older owner's next save matches no row and it lets go.
-- NULL: the row was never adopted since this column exists (created by an older build, or a plain save).
ALTER TABLE lead.agents ADD COLUMN owner TEXT;
