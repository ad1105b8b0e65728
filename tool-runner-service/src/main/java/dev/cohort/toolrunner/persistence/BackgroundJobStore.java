package dev.cohort.toolrunner.persistence;

import dev.cohort.core.toolrunner.BackgroundJob;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * The background-job records: jobs survive a restart as records, so none is silently lost. In PostgreSQL
 * ({@link PgBackgroundJobStore}) where the runner has a database; in the team sandbox's own state directory
 * ({@link FileBackgroundJobStore}) in a sandbox pod, which holds no database credential.
 */
public interface BackgroundJobStore {

    void insert(String id, String team, String agent, String callId, String command, String cwd, String outputRef,
            String instance) throws SQLException;

    /** Records the end of a running job; {@code false} when it had already ended (e.g. cancelled meanwhile). */
    boolean finish(String id, String status, Integer exitCode, String error, String summary, long durationMs)
            throws SQLException;

    void markNotified(String id) throws SQLException;

    Optional<BackgroundJob> find(String id) throws SQLException;

    int countRunning(String team) throws SQLException;

    /** Jobs of {@code instance} still marked running (it restarted): marked failed and returned for notification. */
    List<BackgroundJob> failRunning(String instance, String error) throws SQLException;

    /** Finished jobs whose completion message was never acknowledged. */
    List<BackgroundJob> unnotified() throws SQLException;
}
