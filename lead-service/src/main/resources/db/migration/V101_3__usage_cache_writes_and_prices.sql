-- The usage ledger also keeps each call's prompt tokens written to the provider's cache (part of prompt_tokens, as
-- cached_tokens is) and whether the call's model had a known price: without one, cost_usd is 0 because the cost is
-- unknown, not because the call was free. Rows from before this column stated no price as a cost of 0, so a row with
-- tokens and no cost is taken as unpriced.
ALTER TABLE lead.usage ADD COLUMN cache_write_tokens BIGINT NOT NULL DEFAULT 0;
ALTER TABLE lead.usage ADD COLUMN price_known BOOLEAN NOT NULL DEFAULT TRUE;
UPDATE lead.usage SET price_known = FALSE WHERE cost_usd = 0 AND prompt_tokens + completion_tokens > 0;
