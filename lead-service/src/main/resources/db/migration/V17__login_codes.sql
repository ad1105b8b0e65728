-- #19 item 3: the dashboard's one-time login links (`cohort up`, `cohort dashboard`, `cohort demo --keep` print
-- <lead>/#code=<code>). Only the SHA-256 of a code is stored (hex), never the code: a copy of this table logs nobody in.
-- A code is redeemed once, by one conditional UPDATE (used_at IS NULL AND expires_at > now()); rows a day past their
-- expiry are deleted when a new code is issued.
CREATE TABLE lead.login_codes (
    code_hash   TEXT        PRIMARY KEY,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at  TIMESTAMPTZ NOT NULL,
    used_at     TIMESTAMPTZ
);
CREATE INDEX login_codes_expires_at ON lead.login_codes (expires_at);
