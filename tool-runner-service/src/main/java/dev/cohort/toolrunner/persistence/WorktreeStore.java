package dev.cohort.toolrunner.persistence;

import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The live worktrees with their base commit, and an audit of their events. In PostgreSQL ({@link PgWorktreeStore})
 * where the runner has a database; in the team sandbox's own state directory ({@link FileWorktreeStore}) in a sandbox
 * pod.
 */
public interface WorktreeStore {

    /** A live worktree. */
    record Row(String team, String name, String branch, String baseCommit, String path, String taskId,
            String status, String createdBy, Instant createdAt) {
    }

    /** An audit event. */
    record EventRow(String team, String name, String event, String taskId, String baseCommit, String agent,
            String detail, Instant at) {
    }

    /** Inserts the row; {@code false} when the name is taken in the team. */
    boolean insert(Row r) throws SQLException;

    Optional<Row> find(String team, String name) throws SQLException;

    List<Row> list(String team) throws SQLException;

    boolean delete(String team, String name) throws SQLException;

    void setStatus(String team, String name, String status) throws SQLException;

    void event(String team, String name, String event, String taskId, String baseCommit, String agent, String detail)
            throws SQLException;

    List<EventRow> events(String team, String name) throws SQLException;
}
