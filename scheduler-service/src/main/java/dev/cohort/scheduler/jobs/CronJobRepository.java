package dev.cohort.scheduler.jobs;

import dev.cohort.core.protocol.Json;
import dev.cohort.platform.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Plain JDBC over {@code scheduler.cron_job}, {@code scheduler.instance} and {@code scheduler.idempotency_key}. Every
 * state change is one conditional statement or one transaction; nothing relies on an in-process lock, so any number
 * of replicas can share the table.
 */
public class CronJobRepository {

    private static final String COLUMNS = "id, team, target, cron, prompt, recurring, durable, timezone, missed_policy,"
            + " created_by, created_at, owner_instance, next_fire_at, last_fired_at, fire_count";
    private static final String INSERT = "INSERT INTO scheduler.cron_job (" + COLUMNS
            + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    private final DataSource dataSource;

    public CronJobRepository(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    public DataSource dataSource() {
        return dataSource;
    }

    /**
     * Inserts a job unless its team already has {@code maxPerTeam} jobs. The count and the insert run under a per-team
     * transaction-scoped advisory lock, so concurrent creations on several replicas cannot overshoot the limit.
     *
     * @return false when the limit is reached (nothing inserted)
     */
    public boolean insertWithinLimit(CronJob job, int maxPerTeam) {
        return insertWithinLimit(job, maxPerTeam, null, null) == Outcome.DONE;
    }

    /** How a keyed insert or delete ended. */
    public enum Outcome {
        /** The job was inserted (deleted) and, when keyed, the answer stored with it. */
        DONE,
        /** The team already has the maximum number of jobs; nothing changed. */
        LIMIT_REACHED,
        /** The team already has the maximum number of model-created jobs; nothing changed. */
        MODEL_LIMIT_REACHED,
        /** There is no such job; nothing changed. */
        NOT_FOUND,
        /** Another request with this key committed first; nothing changed, its answer is in {@link #findAnswer}. */
        KEY_TAKEN
    }

    /**
     * {@link #insertWithinLimit(CronJob, int)} with an idempotency key: the key's {@code answer} is stored in the same
     * transaction as the job, and before it, so a concurrent request with the same key waits on the key's row and then
     * changes nothing ({@link Outcome#KEY_TAKEN}). {@code key} null: no key.
     */
    public Outcome insertWithinLimit(CronJob job, int maxPerTeam, String key, IdempotentAnswer answer) {
        return insertWithinLimits(job, new JobLimits(maxPerTeam, Duration.ZERO, Integer.MAX_VALUE, Duration.ZERO), false,
                key, answer);
    }

    /**
     * Inserts a job unless one more would break {@code limits}' counts ({@link JobLimits#check}): the team's jobs, and
     * when {@code model} (the job is model-created) the team's model-created jobs. The counts and the insert run under
     * a per-team transaction-scoped advisory lock, so concurrent creations on several replicas cannot overshoot either
     * limit; the idempotency key is claimed first, as in {@link #insertWithinLimit(CronJob, int, String,
     * IdempotentAnswer)}.
     */
    public Outcome insertWithinLimits(CronJob job, JobLimits limits, boolean model, String key, IdempotentAnswer answer) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                if (key != null && !claimKey(c, job.team(), key, answer, job.createdAt())) {
                    c.rollback();
                    return Outcome.KEY_TAKEN;
                }
                try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))")) {
                    lock.setString(1, "scheduler.team:" + job.team());
                    lock.execute();
                }
                Counts counts = counts(c, job.team());
                JobLimits.Count verdict = limits.check(counts.jobs(), counts.modelJobs(), model);
                if (verdict != JobLimits.Count.OK) {
                    c.rollback();
                    return verdict == JobLimits.Count.TEAM_LIMIT ? Outcome.LIMIT_REACHED : Outcome.MODEL_LIMIT_REACHED;
                }
                insert(c, job);
                c.commit();
                return Outcome.DONE;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new PersistenceException("insert cron job " + job.id(), e);
        }
    }

    /**
     * A team's jobs now, and how many of them are model-created ({@link JobLimits#modelCreated}).
     *
     * @param jobs      every job of the team
     * @param modelJobs the jobs whose {@code created_by} is an agent of the team
     */
    public record Counts(long jobs, long modelJobs) {
    }

    /** {@link Counts} of {@code team}. */
    public Counts counts(String team) {
        try (Connection c = dataSource.getConnection()) {
            return counts(c, team);
        } catch (SQLException e) {
            throw new PersistenceException("count cron jobs of team " + team, e);
        }
    }

    private static Counts counts(Connection c, String team) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*), count(*) FILTER (WHERE created_by LIKE ?)"
                + " FROM scheduler.cron_job WHERE team = ?")) {
            ps.setString(1, JobLimits.MODEL_CREATED_PATTERN);
            ps.setString(2, team);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new Counts(rs.getLong(1), rs.getLong(2));
            }
        }
    }

    /** Inserts without a limit (tests, benchmarks). */
    public void insert(CronJob job) {
        try (Connection c = dataSource.getConnection()) {
            insert(c, job);
        } catch (SQLException e) {
            throw new PersistenceException("insert cron job " + job.id(), e);
        }
    }

    /** Inserts many jobs in one batch, without a limit (benchmarks, imports). */
    public void insertAll(List<CronJob> jobs) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(INSERT)) {
            for (CronJob job : jobs) {
                bind(ps, job);
                ps.addBatch();
            }
            ps.executeBatch();
        } catch (SQLException e) {
            throw new PersistenceException("insert " + jobs.size() + " cron jobs", e);
        }
    }

    private static void insert(Connection c, CronJob job) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(INSERT)) {
            bind(ps, job);
            ps.executeUpdate();
        }
    }

    private static void bind(PreparedStatement ps, CronJob job) throws SQLException {
        Sql.bind(ps, job.id(), job.team(), job.target(), job.cron(), job.prompt(), job.recurring(), job.durable(),
                job.timezone(), job.missedPolicy().wire(), job.createdBy());
        setTs(ps, 11, job.createdAt());
        ps.setString(12, job.ownerInstance());
        setTs(ps, 13, job.nextFireAt());
        setTs(ps, 14, job.lastFiredAt());
        ps.setLong(15, job.fireCount());
    }

    /** The team's jobs, oldest first. */
    public List<CronJob> listByTeam(String team) {
        return query("SELECT " + COLUMNS + " FROM scheduler.cron_job WHERE team = ? ORDER BY created_at, id", team);
    }

    public Optional<CronJob> find(String team, String id) {
        return query("SELECT " + COLUMNS + " FROM scheduler.cron_job WHERE team = ? AND id = ?", team, id).stream().findFirst();
    }

    /** Number of jobs of every team (the gauge and the benchmark). */
    public long countAll() {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM scheduler.cron_job");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new PersistenceException("count cron jobs", e);
        }
    }

    /**
     * Deletes a job. Waits for a firing in progress on that row (it holds the row lock) and deletes afterwards, so no
     * firing can start after this returns.
     *
     * @return false when there was no such job
     */
    public boolean delete(String team, String id) {
        try (Connection c = dataSource.getConnection()) {
            return deleteJob(c, team, id);
        } catch (SQLException e) {
            throw new PersistenceException("delete cron job " + id, e);
        }
    }

    /**
     * {@link #delete(String, String)} with an idempotency key: the key's {@code answer} is stored in the same
     * transaction as the delete (and before it, see {@link #insertWithinLimit(CronJob, int, String, IdempotentAnswer)});
     * a delete that finds no job stores nothing.
     */
    public Outcome delete(String team, String id, String key, IdempotentAnswer answer, Instant at) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                if (!claimKey(c, team, key, answer, at)) {
                    c.rollback();
                    return Outcome.KEY_TAKEN;
                }
                if (!deleteJob(c, team, id)) {
                    c.rollback();
                    return Outcome.NOT_FOUND;
                }
                c.commit();
                return Outcome.DONE;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new PersistenceException("delete cron job " + id, e);
        }
    }

    private static boolean deleteJob(Connection c, String team, String id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM scheduler.cron_job WHERE team = ? AND id = ?")) {
            ps.setString(1, team);
            ps.setString(2, id);
            return ps.executeUpdate() == 1;
        }
    }

    /**
     * Stores the answer of a keyed request, unless the key is taken. A concurrent transaction holding the same key
     * makes this wait for its end (the primary key's index); then it returns false if that one committed.
     */
    private static boolean claimKey(Connection c, String team, String key, IdempotentAnswer answer, Instant at)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO scheduler.idempotency_key"
                + " (team, key, request_digest, status, job, created_at) VALUES (?, ?, ?, ?, CAST(? AS jsonb), ?)"
                + " ON CONFLICT (team, key) DO NOTHING")) {
            Sql.bind(ps, team, key, answer.requestDigest(), answer.status(),
                    answer.job() == null ? null : Json.write(answer.job()));
            setTs(ps, 6, at);
            return ps.executeUpdate() == 1;
        }
    }

    /** The stored first answer to a request with this key, if one was committed. */
    public Optional<IdempotentAnswer> findAnswer(String team, String key) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT request_digest, status, job::text"
                        + " FROM scheduler.idempotency_key WHERE team = ? AND key = ?")) {
            ps.setString(1, team);
            ps.setString(2, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                String job = rs.getString(3);
                return Optional.of(new IdempotentAnswer(rs.getString(1), rs.getInt(2),
                        job == null ? null : Json.read(job, CronJob.class)));
            }
        } catch (SQLException e) {
            throw new PersistenceException("read idempotency key of team " + team, e);
        }
    }

    /** Forgets the answers stored before {@code before} (the retention sweep); returns how many. */
    public int purgeIdempotencyKeys(Instant before) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("DELETE FROM scheduler.idempotency_key WHERE created_at < ?")) {
            setTs(ps, 1, before);
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new PersistenceException("purge idempotency keys", e);
        }
    }

    /**
     * Claims up to {@code limit} jobs due at {@code now}, in due order, locking their rows for the caller's transaction.
     * Rows locked by another replica's transaction are skipped, not waited for: that is the exactly-once claim.
     */
    public List<CronJob> lockDue(Connection c, Instant now, int limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM scheduler.cron_job"
                + " WHERE next_fire_at <= ? ORDER BY next_fire_at LIMIT ? FOR UPDATE SKIP LOCKED")) {
            setTs(ps, 1, now);
            ps.setInt(2, limit);
            return read(ps);
        }
    }

    /**
     * Moves a claimed job to its next occurrence, recording a firing when {@code firedAt} is set. Conditional on the
     * occurrence the caller claimed, so a stale claim can never move a job twice.
     */
    public boolean advance(Connection c, String id, Instant claimedDue, Instant next, Instant firedAt) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(ADVANCE)) {
            bindAdvance(ps, id, claimedDue, next, firedAt);
            return ps.executeUpdate() == 1;
        }
    }

    private static final String ADVANCE = "UPDATE scheduler.cron_job SET next_fire_at = ?,"
            + " last_fired_at = COALESCE(?, last_fired_at), fire_count = fire_count + ? WHERE id = ? AND next_fire_at = ?";
    private static final String DELETE_CLAIMED = "DELETE FROM scheduler.cron_job WHERE id = ? AND next_fire_at = ?";

    private static void bindAdvance(PreparedStatement ps, String id, Instant claimedDue, Instant next, Instant firedAt)
            throws SQLException {
        setTs(ps, 1, next);
        setTs(ps, 2, firedAt);
        ps.setInt(3, firedAt == null ? 0 : 1);
        ps.setString(4, id);
        setTs(ps, 5, claimedDue);
    }

    /** One claimed job moved to its next occurrence; {@code firedAt} null when nothing was fired (missed, skipped). */
    public record Advance(String id, Instant claimedDue, Instant next, Instant firedAt) {
    }

    /** {@link #advance} for many claimed jobs in one JDBC batch (one round trip per tick batch). */
    public void advanceAll(Connection c, List<Advance> advances) throws SQLException {
        if (advances.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(ADVANCE)) {
            for (Advance a : advances) {
                bindAdvance(ps, a.id(), a.claimedDue(), a.next(), a.firedAt());
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** {@link #deleteClaimed} for many jobs in one JDBC batch. */
    public void deleteAllClaimed(Connection c, Map<String, Instant> claimedDueById) throws SQLException {
        if (claimedDueById.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(DELETE_CLAIMED)) {
            for (Map.Entry<String, Instant> e : claimedDueById.entrySet()) {
                ps.setString(1, e.getKey());
                setTs(ps, 2, e.getValue());
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** Deletes a finished (one-shot) job that the caller claimed. */
    public boolean deleteClaimed(Connection c, String id, Instant claimedDue) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(DELETE_CLAIMED)) {
            ps.setString(1, id);
            setTs(ps, 2, claimedDue);
            return ps.executeUpdate() == 1;
        }
    }

    /** Records that a replica is alive (insert or refresh). */
    public void heartbeat(String instanceId, Instant now) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO scheduler.instance (id, started_at, heartbeat_at)"
                        + " VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at")) {
            ps.setString(1, instanceId);
            setTs(ps, 2, now);
            setTs(ps, 3, now);
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new PersistenceException("heartbeat of " + instanceId, e);
        }
    }

    /**
     * Deletes the non-durable jobs of replicas (other than {@code self}) that have not been heard of since
     * {@code staleBefore}, and forgets those replicas.
     *
     * @return the number of jobs deleted
     */
    public int purgeOrphanedSessionJobs(String self, Instant staleBefore) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            int deleted;
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM scheduler.cron_job j WHERE NOT j.durable"
                    + " AND j.owner_instance <> ? AND NOT EXISTS (SELECT 1 FROM scheduler.instance i"
                    + " WHERE i.id = j.owner_instance AND i.heartbeat_at >= ?)")) {
                ps.setString(1, self);
                setTs(ps, 2, staleBefore);
                deleted = ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM scheduler.instance WHERE id <> ? AND heartbeat_at < ?")) {
                ps.setString(1, self);
                setTs(ps, 2, staleBefore);
                ps.executeUpdate();
            }
            c.commit();
            return deleted;
        } catch (SQLException e) {
            throw new PersistenceException("purge orphaned session jobs", e);
        }
    }

    /** A replica stopping cleanly: its non-durable jobs end with it. */
    public int removeInstance(String instanceId) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            int deleted;
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM scheduler.cron_job WHERE owner_instance = ?")) {
                ps.setString(1, instanceId);
                deleted = ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM scheduler.instance WHERE id = ?")) {
                ps.setString(1, instanceId);
                ps.executeUpdate();
            }
            c.commit();
            return deleted;
        } catch (SQLException e) {
            throw new PersistenceException("remove instance " + instanceId, e);
        }
    }

    private List<CronJob> query(String sql, String... args) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setString(i + 1, args[i]);
            }
            return read(ps);
        } catch (SQLException e) {
            throw new PersistenceException("query cron jobs", e);
        }
    }

    private static List<CronJob> read(PreparedStatement ps) throws SQLException {
        List<CronJob> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new CronJob(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                        rs.getBoolean(6), rs.getBoolean(7), rs.getString(8), MissedPolicy.of(rs.getString(9)),
                        rs.getString(10), instant(rs, 11), rs.getString(12), instant(rs, 13), instant(rs, 14), rs.getLong(15)));
            }
        }
        return out;
    }

    /** Timestamps travel as {@link OffsetDateTime} in UTC (JDBC 4.2), typed even when null. */
    private static void setTs(PreparedStatement ps, int index, Instant i) throws SQLException {
        ps.setObject(index, i == null ? null : OffsetDateTime.ofInstant(i, ZoneOffset.UTC), Types.TIMESTAMP_WITH_TIMEZONE);
    }

    private static Instant instant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }
}
