-- Idempotency keys of the cron API (header Idempotency-Key on POST …/crons and DELETE …/crons/{id}): the first answer
-- to a keyed create or cancel, written in the same transaction as its effect, so a retry (the lead's resumed turn
-- repeating schedule_cron / cancel_cron) gets that answer instead of a second job or a 404.
CREATE TABLE scheduler.idempotency_key (
    team           text        NOT NULL,
    key            text        NOT NULL,
    -- SHA-256 of method, job id and body: the same key with another request is refused (422), never answered
    request_digest text        NOT NULL,
    status         integer     NOT NULL,            -- 201 (create) or 204 (cancel)
    job            jsonb,                           -- the job a create made, as it was then; NULL for a cancel
    created_at     timestamptz NOT NULL,
    PRIMARY KEY (team, key)
);

-- the retention sweep (cohort.scheduler.idempotency-retention)
CREATE INDEX idempotency_key_created_at ON scheduler.idempotency_key (created_at);
