-- The prompt whose turn emitted an event travels in the event's envelope (promptId), set by the engine when it makes
-- the event. Events stored before this column carry it, if at all, in their data.
ALTER TABLE lead.events ADD COLUMN prompt_id TEXT;
