-- Who wrote each memory: the agent and how (memory_write, extracted from a conversation, consolidation). The prompt
-- shows it with the memory, with updated_at as the time it was written, so a memory reads as a note of its author and
-- never as an instruction. NULL: written before authors were recorded.
ALTER TABLE lead.memories ADD COLUMN written_by TEXT;
