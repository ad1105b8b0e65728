-- The agent tables of the lead (agents, agent_messages, transcripts, inbox) come from the agent-host migrations
-- (db/agent-host, V100 and V101), run in this schema after the own migrations of the lead. A database made before that kept its
-- history in lead.flyway_schema_history (last version 23) and had created the same tables itself; it is baselined at
-- version 101 (quarkus.flyway.baseline-* in application.properties), and this migration brings its tables to
-- the shape of agent-host: the inbox gets its agent column (every row belongs to the lead) and key (team, agent, id), the
-- agents table the index of agent-host and no foreign key to teams. On a new database it finds nothing to do.
DO $$
BEGIN
    IF to_regclass('lead.flyway_schema_history') IS NULL THEN
        RETURN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM lead.flyway_schema_history WHERE version = '23' AND success) THEN
        RAISE EXCEPTION '%', 'the lead schema was made by a build older than its migration 23 (see'
            || ' lead.flyway_schema_history): start the release before the agent-host migrations once, so it'
            || ' migrates to 23, then this one';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM information_schema.columns
                   WHERE table_schema = 'lead' AND table_name = 'inbox' AND column_name = 'agent') THEN
        ALTER TABLE lead.inbox ADD COLUMN agent TEXT NOT NULL DEFAULT 'lead';
        ALTER TABLE lead.inbox ALTER COLUMN agent DROP DEFAULT;
        ALTER TABLE lead.inbox DROP CONSTRAINT inbox_pkey;
        ALTER TABLE lead.inbox ADD PRIMARY KEY (team, agent, id);
        DROP INDEX lead.inbox_pending;
        CREATE INDEX inbox_pending ON lead.inbox (team, agent, seq) WHERE status = 'received';
    END IF;
    ALTER TABLE lead.agents DROP CONSTRAINT IF EXISTS agents_team_fkey;
    CREATE INDEX IF NOT EXISTS agents_deadline ON lead.agents (deadline) WHERE deadline IS NOT NULL;
    DROP TABLE lead.flyway_schema_history;
END
$$;
