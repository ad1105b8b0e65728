-- Inbox messages already handled by a teammate: the consumer dedupes on message id (redelivery is harmless).
CREATE TABLE teammate.inbox_seen (
    agent_id   TEXT        NOT NULL,
    message_id TEXT        NOT NULL,
    seen_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (agent_id, message_id)
);
