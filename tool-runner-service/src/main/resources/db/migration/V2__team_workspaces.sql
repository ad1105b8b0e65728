-- A team's own workspace (POST /api/v1/teams {workspace}), resolved and checked by the runner. Recorded here so every
-- replica, and the runner after a restart, runs the team's calls in it. A team without a row works in <teams-dir>/<team>.
CREATE TABLE toolrunner.team_workspaces (
    team       TEXT PRIMARY KEY,
    path       TEXT        NOT NULL,
    requested  TEXT        NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
