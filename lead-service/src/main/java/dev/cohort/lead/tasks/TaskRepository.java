package dev.cohort.lead.tasks;

import dev.cohort.lead.store.InTransaction;
import dev.cohort.platform.sql.Sql;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The task board in {@code lead.tasks} / {@code lead.task_deps}, plain JDBC. Every state transition is one
 * conditional statement ({@code UPDATE … WHERE <guards> RETURNING}): it either happens with all its guards true at
 * that instant or not at all, so concurrent claims cannot both win. A statement that matches
 * nothing returns empty; the service then reads the row to explain why.
 *
 * <p>Time is the database's ({@code now()}), so leases mean the same on every replica whatever their clocks say.
 */
@ApplicationScoped
public class TaskRepository {

    /** Columns of a {@link TaskRow}, for SELECT and RETURNING; {@code t} is the task table. */
    private static final String COLS = """
            t.id, t.team, t.subject, t.description, t.status, t.owner,
            ARRAY(SELECT d.depends_on FROM lead.task_deps d WHERE d.task_id = t.id ORDER BY d.depends_on) AS blocked_by,
            ARRAY(SELECT d.depends_on FROM lead.task_deps d JOIN lead.tasks dep ON dep.id = d.depends_on
                  WHERE d.task_id = t.id AND dep.status <> 'completed' ORDER BY d.depends_on) AS unmet,
            t.lease_token, t.lease_until,
            (t.status = 'in_progress' AND t.lease_until IS NOT NULL AND t.lease_until < now()) AS lease_expired,
            t.claimed_at, t.completed_at, t.result, t.claims, t.version, t.created_by, t.created_at, t.updated_at,
            t.worktree, t.role, t.assignee""";

    /**
     * The caller may take {@code t}: it names no assignee or the caller, and no role or the caller's role
     * ({@code :role} is the caller's role as its host knows it, NULL for an agent without one, e.g. the lead).
     */
    private static final String ELIGIBLE = """
            ((t.assignee IS NULL OR t.assignee = :agent) AND (t.role IS NULL OR t.role = CAST(:role AS text)))""";

    /** No dependency of task {@code t} is unfinished. */
    private static final String UNBLOCKED = """
            NOT EXISTS (SELECT 1 FROM lead.task_deps d JOIN lead.tasks dep ON dep.id = d.depends_on
                        WHERE d.task_id = t.id AND dep.status <> 'completed')""";

    /** The caller already holds {@code t}: same agent and, unless identity is by owner only, the same lease token. */
    private static final String HELD = """
            (t.status = 'in_progress' AND t.owner = :agent
             AND (CAST(:ownerOnly AS boolean) OR t.lease_token = CAST(:token AS text)))""";

    /** {@code t} may be taken: nobody holds it, or its holder's lease ran out (dead holders give work back). */
    private static final String FREE = """
            ((t.status = 'pending' AND t.owner IS NULL)
             OR (t.status = 'in_progress' AND t.lease_until IS NOT NULL AND t.lease_until < now()))""";

    /** The lease end for a lease of {@code :leaseMs} milliseconds; NULL = no expiry. */
    private static final String LEASE_END = "now() + CAST(:leaseMs AS double precision) * interval '1 millisecond'";

    private static final NamedSql CLAIM = NamedSql.of("""
            UPDATE lead.tasks AS t SET
                status = 'in_progress', owner = :agent,
                lease_token = CASE WHEN %1$s THEN t.lease_token ELSE CAST(:token AS text) END,
                lease_until = %2$s,
                claimed_at = CASE WHEN %1$s THEN t.claimed_at ELSE now() END,
                claims = t.claims + CASE WHEN %1$s THEN 0 ELSE 1 END,
                version = t.version + 1, updated_at = now()
            WHERE t.team = :team AND t.id = :id AND (%3$s OR %1$s) AND %4$s AND %6$s
            RETURNING %5$s, (t.claimed_at = now()) AS fresh""".formatted(HELD, LEASE_END, FREE, UNBLOCKED, COLS, ELIGIBLE));

    /**
     * Claim-next: a task the caller already holds with the same token first (a retried claim-next returns the same
     * task instead of a second one), else the oldest pending unblocked task it may take, else the oldest one whose
     * lease expired; each branch walks the {@code (team, status, id)} index in id order and locks its row with
     * SKIP LOCKED, so concurrent callers each get a different row without waiting on each other and a claim
     * costs the same on a board of 10 or 10,000 pending tasks. (An expired claim is also turned back into a pending one
     * by any board read, see {@link #expireLeases}.)
     */
    private static final NamedSql CLAIM_NEXT = NamedSql.of("""
            WITH held AS (
                SELECT t.id FROM lead.tasks t
                WHERE t.team = :team AND t.status = 'in_progress' AND t.owner = :agent
                  AND t.lease_token = CAST(:token AS text)
                LIMIT 1
                FOR UPDATE OF t SKIP LOCKED),
            pend AS (
                SELECT t.id FROM lead.tasks t
                WHERE NOT EXISTS (SELECT 1 FROM held)
                  AND t.team = :team AND t.status = 'pending' AND t.owner IS NULL AND %1$s AND %2$s
                ORDER BY t.id
                LIMIT 1
                FOR UPDATE OF t SKIP LOCKED),
            stale AS (
                SELECT t.id FROM lead.tasks t
                WHERE NOT EXISTS (SELECT 1 FROM held) AND NOT EXISTS (SELECT 1 FROM pend)
                  AND t.team = :team AND t.status = 'in_progress' AND t.lease_until IS NOT NULL AND t.lease_until < now()
                  AND %1$s AND %2$s
                ORDER BY t.id
                LIMIT 1
                FOR UPDATE OF t SKIP LOCKED),
            next AS (
                SELECT id, true AS held FROM held
                UNION ALL SELECT id, false AS held FROM pend
                UNION ALL SELECT id, false AS held FROM stale)
            UPDATE lead.tasks AS t SET
                status = 'in_progress', owner = :agent, lease_token = CAST(:token AS text),
                lease_until = %3$s,
                claimed_at = CASE WHEN next.held THEN t.claimed_at ELSE now() END,
                claims = t.claims + CASE WHEN next.held THEN 0 ELSE 1 END,
                version = t.version + 1, updated_at = now()
            FROM next WHERE t.id = next.id
            RETURNING %4$s, NOT next.held AS fresh""".formatted(UNBLOCKED, ELIGIBLE, LEASE_END, COLS));

    /** Completion: only the holder, only while its lease runs (an expired lease is lost, whether or not retaken). */
    private static final NamedSql COMPLETE = NamedSql.of("""
            UPDATE lead.tasks AS t SET
                status = 'completed', completed_at = now(), lease_until = NULL, result = CAST(:result AS text),
                version = t.version + 1, updated_at = now()
            WHERE t.team = :team AND t.id = :id AND %1$s
              AND (t.lease_until IS NULL OR t.lease_until >= now())
            RETURNING %2$s""".formatted(HELD, COLS));

    /**
     * The pending dependants of a just-completed task, row-locked in id order. Two completions that unblock the same
     * task (its last two dependencies) serialise here, so the second one's next statement sees the first one's
     * commit and exactly one of them reports the task as unblocked.
     */
    private static final NamedSql LOCK_DEPENDANTS = NamedSql.of("""
            SELECT t.id FROM lead.tasks t JOIN lead.task_deps d ON d.task_id = t.id
            WHERE d.depends_on = :id AND t.status = 'pending'
            ORDER BY t.id
            FOR NO KEY UPDATE OF t""");

    private static final NamedSql UNBLOCKED_AMONG = NamedSql.of("""
            SELECT %1$s FROM lead.tasks t WHERE t.id = ANY(:ids) AND %2$s ORDER BY t.id""".formatted(COLS, UNBLOCKED));

    private static final NamedSql RELEASE = NamedSql.of("""
            UPDATE lead.tasks AS t SET
                status = 'pending', owner = NULL, lease_token = NULL, lease_until = NULL, claimed_at = NULL,
                version = t.version + 1, updated_at = now()
            WHERE t.team = :team AND t.id = :id AND %1$s
            RETURNING %2$s""".formatted(HELD, COLS));

    private static final NamedSql HEARTBEAT = NamedSql.of("""
            UPDATE lead.tasks AS t SET lease_until = %1$s, version = t.version + 1, updated_at = now()
            WHERE t.team = :team AND t.id = :id AND %2$s
              AND (t.lease_until IS NULL OR t.lease_until >= now())
            RETURNING %3$s""".formatted(LEASE_END, HELD, COLS));

    /**
     * Renews many leases in one statement (one heartbeat loop per teammate replica, batched per team): each
     * {@code (id, agent, token)} whose claim is still live and held with that token; returns the renewed ids.
     */
    private static final NamedSql HEARTBEAT_ALL = NamedSql.of("""
            UPDATE lead.tasks AS t SET lease_until = %1$s, version = t.version + 1, updated_at = now()
            FROM unnest(CAST(:ids AS bigint[]), CAST(:agents AS text[]), CAST(:tokens AS text[])) AS l(id, agent, token)
            WHERE t.team = :team AND t.id = l.id AND t.status = 'in_progress' AND t.owner = l.agent
              AND t.lease_token = l.token AND (t.lease_until IS NULL OR t.lease_until >= now())
            RETURNING t.id""".formatted(LEASE_END));

    /** Expired claims go back to pending, so what observers read is what claimers see (reaped lazily). */
    private static final NamedSql EXPIRE = NamedSql.of("""
            WITH old AS (
                SELECT t.id, t.owner FROM lead.tasks t
                WHERE t.team = :team AND t.status = 'in_progress' AND t.lease_until < now()
                FOR UPDATE OF t SKIP LOCKED)
            UPDATE lead.tasks AS t SET
                status = 'pending', owner = NULL, lease_token = NULL, lease_until = NULL, claimed_at = NULL,
                version = t.version + 1, updated_at = now()
            FROM old WHERE t.id = old.id
            RETURNING t.id, old.owner""");

    private static final NamedSql BIND_WORKTREE = NamedSql.of("""
            UPDATE lead.tasks AS t SET worktree = :worktree, version = t.version + 1, updated_at = now()
            WHERE t.team = :team AND t.id = :id
            RETURNING %1$s""".formatted(COLS));

    private static final NamedSql IN_WORKTREE = NamedSql.of(
            "SELECT " + COLS + " FROM lead.tasks t WHERE t.team = :team AND t.worktree = :worktree ORDER BY t.id");

    private static final NamedSql UNBIND_WORKTREE = NamedSql.of("""
            UPDATE lead.tasks AS t SET worktree = NULL, version = t.version + 1, updated_at = now()
            WHERE t.team = :team AND t.worktree = :worktree
            RETURNING %1$s""".formatted(COLS));

    private static final NamedSql FIND = NamedSql.of("SELECT " + COLS + " FROM lead.tasks t WHERE t.team = :team AND t.id = :id");
    private static final NamedSql FIND_MANY = NamedSql.of(
            "SELECT " + COLS + " FROM lead.tasks t WHERE t.team = :team AND t.id = ANY(:ids) ORDER BY t.id");
    private static final NamedSql LIST = NamedSql.of("SELECT " + COLS + " FROM lead.tasks t WHERE t.team = :team ORDER BY t.id");
    private static final NamedSql EXISTING = NamedSql.of("SELECT t.id FROM lead.tasks t WHERE t.team = :team AND t.id = ANY(:ids)");
    private static final NamedSql INSERT = NamedSql.of("""
            INSERT INTO lead.tasks (team, subject, description, created_by, role, assignee)
            SELECT :team, :subject, :description, :createdBy, CAST(:role AS text), CAST(:assignee AS text)
            WHERE (SELECT count(*) FROM lead.tasks c WHERE c.team = :team) < :maxTasks
            RETURNING id""");
    private static final NamedSql INSERT_DEP = NamedSql.of(
            "INSERT INTO lead.task_deps (team, task_id, depends_on) VALUES (:team, :id, :dep)");

    @Inject
    AgroalDataSource ds;

    /** A claim that went through; {@code fresh} is false when the caller already held it (a retried claim). */
    public record Claimed(TaskRow task, boolean fresh) {
    }

    /** A completion that went through, with the tasks it (and only it) unblocked. */
    public record Completed(TaskRow task, List<TaskRow> unblocked) {
    }

    /** The outcome of an insert: the row, or the dependencies that do not exist, or a full board. */
    public record Inserted(TaskRow task, List<Long> missing, boolean full) {
    }

    /** Creates a task and its dependency edges in one transaction; dependencies must exist in the same team. */
    public Inserted insert(String team, String subject, String description, String createdBy, long[] deps, int maxTasks) {
        return insert(team, subject, description, createdBy, deps, maxTasks, InTransaction.none());
    }

    /** {@link #insert(String, String, String, String, long[], int, String, String, InTransaction)} for anybody. */
    public Inserted insert(String team, String subject, String description, String createdBy, long[] deps, int maxTasks,
            InTransaction<TaskRow> also) {
        return insert(team, subject, description, createdBy, deps, maxTasks, null, null, also);
    }

    /** {@link #insert(String, String, String, String, long[], int)}, running {@code also} with the new task before the commit. */
    public Inserted insert(String team, String subject, String description, String createdBy, long[] deps, int maxTasks,
            String role, String assignee, InTransaction<TaskRow> also) {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                Set<Long> found = new LinkedHashSet<>();
                if (deps.length > 0) {
                    try (PreparedStatement ps = EXISTING.prepare(c, params("team", team, "ids", deps));
                            ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            found.add(rs.getLong(1));
                        }
                    }
                }
                List<Long> missing = Arrays.stream(deps).filter(d -> !found.contains(d)).boxed().toList();
                if (!missing.isEmpty()) {
                    c.rollback();
                    return new Inserted(null, missing, false);
                }
                long id;
                try (PreparedStatement ps = INSERT.prepare(c, params("team", team, "subject", subject, "description",
                        description, "createdBy", createdBy, "maxTasks", maxTasks, "role", role, "assignee", assignee));
                        ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        c.rollback();
                        return new Inserted(null, List.of(), true);
                    }
                    id = rs.getLong(1);
                }
                for (long dep : deps) {
                    try (PreparedStatement ps = INSERT_DEP.prepare(c, params("team", team, "id", id, "dep", dep))) {
                        ps.executeUpdate();
                    }
                }
                TaskRow row = one(c, FIND, params("team", team, "id", id)).orElseThrow();
                also.run(c, row);
                c.commit();
                return new Inserted(row, List.of(), false);
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create a task in team " + team + ": " + e.getMessage(), e);
        }
    }

    /** Binds task {@code id} to {@code worktree} (a name; {@code null} unbinds); empty when there is no such task. */
    public Optional<TaskRow> bindWorktree(String team, long id, String worktree) {
        return bindWorktree(team, id, worktree, InTransaction.none());
    }

    /** {@link #bindWorktree(String, long, String)}, running {@code also} with the bound task in its transaction. */
    public Optional<TaskRow> bindWorktree(String team, long id, String worktree, InTransaction<TaskRow> also) {
        return Sql.inTransaction(ds, "bind task " + id + " to a worktree", c -> {
            Optional<TaskRow> bound = one(c, BIND_WORKTREE, params("team", team, "id", id, "worktree", worktree));
            if (bound.isPresent()) {
                also.run(c, bound.get());
            }
            return bound;
        });
    }

    /** The team's tasks bound to {@code worktree}, ascending. */
    public List<TaskRow> inWorktree(String team, String worktree) {
        return query("read the tasks of worktree " + worktree,
                c -> many(c, IN_WORKTREE, params("team", team, "worktree", worktree)));
    }

    /** Clears every binding to {@code worktree}; returns the tasks that were bound. */
    public List<TaskRow> unbindWorktree(String team, String worktree) {
        return unbindWorktree(team, worktree, InTransaction.none());
    }

    /** {@link #unbindWorktree(String, String)}, running {@code also} with the unbound tasks in its transaction. */
    public List<TaskRow> unbindWorktree(String team, String worktree, InTransaction<List<TaskRow>> also) {
        return Sql.inTransaction(ds, "unbind worktree " + worktree, c -> {
            List<TaskRow> unbound = many(c, UNBIND_WORKTREE, params("team", team, "worktree", worktree));
            also.run(c, unbound);
            return unbound;
        });
    }

    public Optional<TaskRow> find(String team, long id) {
        return query("read task " + id, c -> one(c, FIND, params("team", team, "id", id)));
    }

    /** The team's tasks with these ids, ascending. */
    public List<TaskRow> findAll(String team, long[] ids) {
        return query("read tasks", c -> many(c, FIND_MANY, params("team", team, "ids", ids)));
    }

    /** The whole board of a team, in creation order. */
    public List<TaskRow> list(String team) {
        return query("list tasks", c -> many(c, LIST, params("team", team)));
    }

    /**
     * Claims task {@code id} for {@code agent}. {@code ownerOnly}: the caller is identified by name alone (the lead's
     * tools); otherwise also by {@code token}, which becomes the new lease token. {@code leaseMs} null = no expiry.
     */
    public Optional<Claimed> claim(String team, long id, String agent, String token, boolean ownerOnly, Double leaseMs) {
        return claim(team, id, agent, null, token, ownerOnly, leaseMs, InTransaction.none());
    }

    /** {@link #claim(String, long, String, String, boolean, Double)}, running {@code also} with a claim that went through, in its transaction. */
    public Optional<Claimed> claim(String team, long id, String agent, String role, String token, boolean ownerOnly,
            Double leaseMs, InTransaction<Claimed> also) {
        return Sql.inTransaction(ds, "claim task " + id, c -> {
            Optional<Claimed> claimed;
            try (PreparedStatement ps = CLAIM.prepare(c, params("team", team, "id", id, "agent", agent, "token", token,
                    "ownerOnly", ownerOnly, "leaseMs", leaseMs, "role", role)); ResultSet rs = ps.executeQuery()) {
                claimed = rs.next() ? Optional.of(new Claimed(row(rs), rs.getBoolean("fresh"))) : Optional.empty();
            }
            if (claimed.isPresent()) {
                also.run(c, claimed.get());
            }
            return claimed;
        });
    }

    /** Claims the oldest free unblocked task of the team, or nothing when there is none. */
    public Optional<Claimed> claimNext(String team, String agent, String token, Double leaseMs) {
        return claimNext(team, agent, null, token, leaseMs);
    }

    /** Claims the oldest free unblocked task of the team that {@code agent} of {@code role} may take (role/assignee). */
    public Optional<Claimed> claimNext(String team, String agent, String role, String token, Double leaseMs) {
        return query("claim the next task", c -> {
            try (PreparedStatement ps = CLAIM_NEXT.prepare(c, params("team", team, "agent", agent, "token", token,
                    "ownerOnly", false, "leaseMs", leaseMs, "role", role)); ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(new Claimed(row(rs), rs.getBoolean("fresh"))) : Optional.empty();
            }
        });
    }

    /** Completes a task the caller holds and reports exactly the tasks this completion unblocked. */
    public Optional<Completed> complete(String team, long id, String agent, String token, boolean ownerOnly, String result) {
        return complete(team, id, agent, token, ownerOnly, result, InTransaction.none());
    }

    /** {@link #complete(String, long, String, String, boolean, String)}, running {@code also} with a completion that went through, in its transaction. */
    public Optional<Completed> complete(String team, long id, String agent, String token, boolean ownerOnly, String result,
            InTransaction<Completed> also) {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                Optional<TaskRow> done = one(c, COMPLETE, params("team", team, "id", id, "agent", agent, "token", token,
                        "ownerOnly", ownerOnly, "result", result));
                if (done.isEmpty()) {
                    c.rollback();
                    return Optional.empty();
                }
                List<Long> dependants = new ArrayList<>();
                try (PreparedStatement ps = LOCK_DEPENDANTS.prepare(c, params("id", id)); ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        dependants.add(rs.getLong(1));
                    }
                }
                List<TaskRow> unblocked = dependants.isEmpty() ? List.of()
                        : many(c, UNBLOCKED_AMONG, params("ids", dependants.stream().mapToLong(Long::longValue).toArray()));
                Completed completed = new Completed(done.get(), unblocked);
                also.run(c, completed);
                c.commit();
                return Optional.of(completed);
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot complete task " + id + ": " + e.getMessage(), e);
        }
    }

    /** Gives a held task back to pending. */
    public Optional<TaskRow> release(String team, long id, String agent, String token, boolean ownerOnly) {
        return query("release task " + id, c -> one(c, RELEASE, params("team", team, "id", id, "agent", agent,
                "token", token, "ownerOnly", ownerOnly)));
    }

    /** Renews a live lease of the holder (by name, or by name and {@code token}). */
    public Optional<TaskRow> heartbeat(String team, long id, String agent, String token, boolean ownerOnly, double leaseMs) {
        return query("renew the lease of task " + id, c -> one(c, HEARTBEAT, params("team", team, "id", id, "agent", agent,
                "token", token, "ownerOnly", ownerOnly, "leaseMs", leaseMs)));
    }

    /** A lease to renew in a batch. */
    public record Lease(long id, String agent, String token) {
    }

    /** Renews every live lease of {@code leases} in one statement; returns the ids renewed (the others are lost). */
    public Set<Long> heartbeatAll(String team, List<Lease> leases, double leaseMs) {
        if (leases.isEmpty()) {
            return Set.of();
        }
        long[] ids = leases.stream().mapToLong(Lease::id).toArray();
        String[] agents = leases.stream().map(Lease::agent).toArray(String[]::new);
        String[] tokens = leases.stream().map(Lease::token).toArray(String[]::new);
        return query("renew leases", c -> {
            Set<Long> out = new LinkedHashSet<>();
            try (PreparedStatement ps = HEARTBEAT_ALL.prepare(c, params("team", team, "ids", ids, "agents", agents,
                    "tokens", tokens, "leaseMs", leaseMs)); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1));
                }
            }
            return out;
        });
    }

    /** Returns every expired claim of the team to pending; the result maps task id → the holder that lost it. */
    public Map<Long, String> expireLeases(String team) {
        return query("expire leases", c -> {
            Map<Long, String> out = new HashMap<>();
            try (PreparedStatement ps = EXPIRE.prepare(c, params("team", team)); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getLong(1), rs.getString(2));
                }
            }
            return out;
        });
    }

    /**
     * Every task {@code agent} holds in {@code team} back to pending, in one statement (a teammate that shut
     * down, or whose shutdown request expired, holds nothing); returns the tasks released.
     */
    public List<TaskRow> releaseAllOwnedBy(String team, String agent) {
        return query("release the tasks of " + agent, c -> many(c, RELEASE_ALL_OWNED, params("team", team, "agent", agent)));
    }

    private static final NamedSql RELEASE_ALL_OWNED = NamedSql.of("""
            UPDATE lead.tasks AS t SET
                status = 'pending', owner = NULL, lease_token = NULL, lease_until = NULL, claimed_at = NULL,
                version = t.version + 1, updated_at = now()
            WHERE t.team = :team AND t.owner = :agent AND t.status = 'in_progress'
            RETURNING %1$s""".formatted(COLS));

    // ---- batched claims (one replica's idle teammates of one team in one request)

    /** Eligible for at least one claimer of the batch (the exact pairing is {@link ClaimMatching}'s). */
    private static final String ELIGIBLE_ANY = """
            ((t.assignee IS NULL OR t.assignee = ANY(CAST(:agents AS text[])))
             AND (t.role IS NULL OR t.role = ANY(CAST(:roles AS text[]))))""";

    /**
     * One round of a batched claim: the tasks the claimers already hold with their tokens (a retried batch gets the
     * same tasks back), then up to {@code :limit} pending unblocked tasks after {@code :after} that at least one claimer
     * may take, then (only if those are too few) as many whose lease expired; each walks its index in id order and
     * locks its rows with SKIP LOCKED, so two replicas' batches each take different rows without waiting. The held
     * tasks are looked up per claimer (a LATERAL probe of {@code tasks_holders} on team, owner and token): written as
     * {@code (owner, lease_token) IN (SELECT … unnest …)}, PostgreSQL walked every in-progress task of the team and
     * joined it with the claimers (27 ms per batch on a board of 3,000 claimed tasks, 2026-12-02).
     */
    private static final NamedSql CLAIM_BATCH_CANDIDATES = NamedSql.of("""
            WITH held AS (
                SELECT h.id, h.owner FROM unnest(CAST(:agents AS text[]), CAST(:tokens AS text[])) AS c(agent, token)
                CROSS JOIN LATERAL (
                    SELECT t.id, t.owner FROM lead.tasks t
                    WHERE t.team = :team AND t.status = 'in_progress' AND t.owner = c.agent AND t.lease_token = c.token
                    FOR UPDATE OF t SKIP LOCKED) AS h),
            pend AS (
                SELECT t.id, t.role, t.assignee FROM lead.tasks t
                WHERE t.team = :team AND t.status = 'pending' AND t.owner IS NULL AND t.id > :after AND %1$s AND %2$s
                ORDER BY t.id
                LIMIT :limit
                FOR UPDATE OF t SKIP LOCKED),
            stale AS (
                SELECT t.id, t.role, t.assignee FROM lead.tasks t
                WHERE (SELECT count(*) FROM pend) < :limit
                  AND t.team = :team AND t.status = 'in_progress' AND t.lease_until IS NOT NULL AND t.lease_until < now()
                  AND t.id > :afterStale AND %1$s AND %2$s
                ORDER BY t.id
                LIMIT :limit
                FOR UPDATE OF t SKIP LOCKED)
            SELECT 0 AS kind, id, owner AS agent, NULL AS role, NULL AS assignee FROM held
            UNION ALL SELECT 1, id, NULL, role, assignee FROM pend
            UNION ALL SELECT 2, id, NULL, role, assignee FROM stale""".formatted(UNBLOCKED, ELIGIBLE_ANY));

    /** Applies a batch's matching to the rows its rounds locked: one statement for every claim of the batch. */
    private static final NamedSql CLAIM_BATCH_APPLY = NamedSql.of("""
            UPDATE lead.tasks AS t SET
                status = 'in_progress', owner = m.agent, lease_token = m.token,
                lease_until = %1$s,
                claimed_at = CASE WHEN m.held = 1 THEN t.claimed_at ELSE now() END,
                claims = t.claims + CASE WHEN m.held = 1 THEN 0 ELSE 1 END,
                version = t.version + 1, updated_at = now()
            FROM unnest(CAST(:ids AS bigint[]), CAST(:agents AS text[]), CAST(:tokens AS text[]), CAST(:held AS bigint[]))
                 AS m(id, agent, token, held)
            WHERE t.team = :team AND t.id = m.id
              AND ((m.held = 1 AND t.status = 'in_progress' AND t.owner = m.agent AND t.lease_token = m.token)
                   OR (m.held = 0 AND %2$s)) AND %3$s
            RETURNING %4$s, (m.held = 0) AS fresh, m.agent AS claimer""".formatted(LEASE_END, FREE, UNBLOCKED, COLS));

    /** A claimer of a batch: its name, its role (null: none), the lease token it asks with. */
    public record BatchClaimer(String agent, String role, String token) {
    }

    /** What a batched claim gave out (claimers that got nothing are absent), and the statements it took. */
    public record BatchClaimed(List<Claimed> claims, int statements) {
    }

    /**
     * Claims, in one transaction, a task for as many of {@code claimers} (distinct agents of one team) as the board
     * allows: each one's held task again (same token), else a free unblocked task it may take, oldest first, the
     * pairing a maximum matching ({@link ClaimMatching}). Usually two statements (lock the candidates, apply); a round
     * more only when the first round's candidates suited too few of the claimers (mixed roles / assignees).
     */
    public BatchClaimed claimBatch(String team, List<BatchClaimer> claimers, double leaseMs) {
        return claimBatch(team, claimers, leaseMs, InTransaction.none());
    }

    /**
     * {@link #claimBatch(String, List, double)}, running {@code also} with the claims (task id order) before the commit
     * (the lead stores their {@code task_claimed} events there: one transaction, not a second one after it).
     */
    public BatchClaimed claimBatch(String team, List<BatchClaimer> claimers, double leaseMs,
            InTransaction<List<Claimed>> also) {
        if (claimers.isEmpty()) {
            return new BatchClaimed(List.of(), 0);
        }
        return Sql.inTransaction(ds, "claim a batch of tasks", c -> {
            int statements = 0;
            Map<String, Long> taken = new LinkedHashMap<>(); // agent → task id
            Set<Long> heldIds = new HashSet<>();
            List<BatchClaimer> open = new ArrayList<>(claimers);
            long after = 0;
            long afterStale = 0;
            boolean first = true;
            while (!open.isEmpty()) {
                List<ClaimMatching.Candidate> cands = new ArrayList<>();
                int pend = 0;
                int stale = 0;
                String[] agents = open.stream().map(BatchClaimer::agent).toArray(String[]::new);
                try (PreparedStatement ps = CLAIM_BATCH_CANDIDATES.prepare(c, params("team", team, "agents", agents,
                        "roles", open.stream().map(BatchClaimer::role).toArray(String[]::new),
                        "tokens", open.stream().map(BatchClaimer::token).toArray(String[]::new),
                        "after", after, "afterStale", afterStale, "limit", open.size()));
                        ResultSet rs = ps.executeQuery()) {
                    statements++;
                    while (rs.next()) {
                        int kind = rs.getInt("kind");
                        long id = rs.getLong("id");
                        if (kind == 0) {
                            if (first) { // only the first round asks for held tasks; later rounds' claimers hold none
                                taken.put(rs.getString("agent"), id);
                                heldIds.add(id);
                            }
                            continue;
                        }
                        if (kind == 1) {
                            pend++;
                            after = Math.max(after, id);
                        } else {
                            stale++;
                            afterStale = Math.max(afterStale, id);
                        }
                        cands.add(new ClaimMatching.Candidate(id, rs.getString("role"), rs.getString("assignee")));
                    }
                }
                first = false;
                int limit = open.size();
                open.removeIf(b -> taken.containsKey(b.agent()));
                List<ClaimMatching.Claimer> who = open.stream().map(b -> new ClaimMatching.Claimer(b.agent(), b.role())).toList();
                int[] pick = ClaimMatching.match(cands, who);
                List<BatchClaimer> still = new ArrayList<>();
                for (int i = 0; i < open.size(); i++) {
                    if (pick[i] >= 0) {
                        taken.put(open.get(i).agent(), cands.get(pick[i]).id());
                    } else {
                        still.add(open.get(i));
                    }
                }
                open = still;
                if (pend < limit && stale < limit) {
                    break; // both walks reached the end of what these claimers may take
                }
            }
            if (taken.isEmpty()) {
                return new BatchClaimed(List.of(), statements);
            }
            Map<String, BatchClaimer> byAgent = new HashMap<>();
            claimers.forEach(b -> byAgent.put(b.agent(), b));
            List<String> ag = new ArrayList<>(taken.keySet());
            long[] ids = ag.stream().mapToLong(taken::get).toArray();
            long[] held = ag.stream().mapToLong(a -> heldIds.contains(taken.get(a)) ? 1 : 0).toArray();
            List<Claimed> out = new ArrayList<>();
            try (PreparedStatement ps = CLAIM_BATCH_APPLY.prepare(c, params("team", team, "ids", ids,
                    "agents", ag.toArray(String[]::new),
                    "tokens", ag.stream().map(a -> byAgent.get(a).token()).toArray(String[]::new),
                    "held", held, "leaseMs", leaseMs)); ResultSet rs = ps.executeQuery()) {
                statements++;
                while (rs.next()) {
                    out.add(new Claimed(row(rs), rs.getBoolean("fresh")));
                }
            }
            out.sort(Comparator.comparingLong(x -> x.task().id()));
            also.run(c, out);
            return new BatchClaimed(out, statements);
        });
    }

    // ---- plumbing

    private interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    private <T> T query(String what, Work<T> work) {
        try (Connection c = ds.getConnection()) {
            return work.run(c);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot " + what + ": " + e.getMessage(), e);
        }
    }

    private static Optional<TaskRow> one(Connection c, NamedSql sql, Map<String, Object> params) throws SQLException {
        try (PreparedStatement ps = sql.prepare(c, params); ResultSet rs = ps.executeQuery()) {
            return rs.next() ? Optional.of(row(rs)) : Optional.empty();
        }
    }

    private static List<TaskRow> many(Connection c, NamedSql sql, Map<String, Object> params) throws SQLException {
        try (PreparedStatement ps = sql.prepare(c, params); ResultSet rs = ps.executeQuery()) {
            List<TaskRow> out = new ArrayList<>();
            while (rs.next()) {
                out.add(row(rs));
            }
            return out;
        }
    }

    private static Map<String, Object> params(Object... kv) {
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private static TaskRow row(ResultSet rs) throws SQLException {
        return new TaskRow(rs.getLong("id"), rs.getString("team"), rs.getString("subject"), rs.getString("description"),
                rs.getString("status"), rs.getString("owner"), longs(rs.getArray("blocked_by")),
                longs(rs.getArray("unmet")), rs.getString("lease_token"), instant(rs.getTimestamp("lease_until")),
                rs.getBoolean("lease_expired"), instant(rs.getTimestamp("claimed_at")),
                instant(rs.getTimestamp("completed_at")), rs.getString("result"), rs.getInt("claims"),
                rs.getInt("version"), rs.getString("created_by"), instant(rs.getTimestamp("created_at")),
                instant(rs.getTimestamp("updated_at")), rs.getString("worktree"), rs.getString("role"),
                rs.getString("assignee"));
    }

    private static List<Long> longs(Array a) throws SQLException {
        if (a == null) {
            return List.of();
        }
        Object[] values = (Object[]) a.getArray();
        List<Long> out = new ArrayList<>(values.length);
        for (Object v : values) {
            out.add(((Number) v).longValue());
        }
        return out;
    }

    private static Instant instant(Timestamp ts) {
        return ts == null ? null : ts.toInstant();
    }
}
