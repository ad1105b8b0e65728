package dev.cohort.toolrunner.persistence;

import dev.cohort.toolrunner.config.ToolRunnerConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;

/** The records of background jobs and worktrees: on the sandbox's own volume in a sandbox pod, else PostgreSQL. */
@ApplicationScoped
public class Stores {

    @Produces
    @ApplicationScoped
    BackgroundJobStore backgroundJobs(ToolRunnerConfig config, Instance<PgBackgroundJobStore> pg,
            Instance<FileBackgroundJobStore> file) {
        return config.role() == ToolRunnerConfig.Role.SANDBOX ? file.get() : pg.get();
    }

    @Produces
    @ApplicationScoped
    WorktreeStore worktrees(ToolRunnerConfig config, Instance<PgWorktreeStore> pg, Instance<FileWorktreeStore> file) {
        return config.role() == ToolRunnerConfig.Role.SANDBOX ? file.get() : pg.get();
    }
}
