package dev.cohort.lead.tasks;

import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.payload.EventPayload;
import dev.cohort.core.protocol.payload.TaskClaimed;
import dev.cohort.core.protocol.payload.TaskCompleted;
import dev.cohort.core.protocol.payload.TaskCreated;
import dev.cohort.lead.events.EventService;
import dev.cohort.lead.events.RosterRepository;
import dev.cohort.lead.store.InTransaction;
import dev.cohort.lead.teams.TeamRepository;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.function.Function;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.UUID;

/**
 * The task board of each team: create with validated dependencies, list, get, claim,
 * claim-next, complete, release, heartbeat. Used by the lead's tools and by the internal API teammates call.
 *
 * <p>Each transition is one conditional statement in {@link TaskRepository}; when it matches nothing, this service
 * reads the task and {@link TaskRules} explains the refusal (blockers, owner, status, lease). Successful transitions
 * emit {@code task_created} / {@code task_claimed} / {@code task_completed}.
 */
@ApplicationScoped
public class TaskService {

    @Inject
    TaskRepository repo;

    @Inject
    TeamRepository teams;

    @Inject
    EventService events;

    @Inject
    TaskConfig cfg;

    @Inject
    TaskAvailability availability;

    @Inject
    RosterRepository roster;

    /** A claim that went through. {@code fresh} is false for a repeated claim by the same holder. */
    public record Claim(TaskRow task, String leaseToken, boolean fresh) {
    }

    /** A completion: the task, exactly the tasks it unblocked, and whether it had already been completed by the caller. */
    public record Completion(TaskRow task, List<TaskRow> unblocked, boolean repeated) {
    }

    public TaskConfig config() {
        return cfg;
    }

    /** Creates a task; {@code blockedBy} must name existing tasks of the team (which also rules out cycles). */
    public TaskRow create(String team, String actor, String subject, String description, List<String> blockedBy) {
        return create(team, actor, subject, description, blockedBy, InTransaction.none());
    }

    /** {@link #create(String, String, String, String, List)}; {@code also} commits with the new task (a tool's record). */
    public TaskRow create(String team, String actor, String subject, String description, List<String> blockedBy,
            InTransaction<TaskRow> also) {
        return create(team, actor, subject, description, blockedBy, null, null, also);
    }

    /**
     * {@link #create(String, String, String, String, List, InTransaction)} for a {@code role} and/or an
     * {@code assignee} (null = anybody): only a matching teammate claims it. An unblocked new task is announced to
     * the team's idle teammates ({@code task_available}).
     */
    public TaskRow create(String team, String actor, String subject, String description, List<String> blockedBy,
            String role, String assignee, InTransaction<TaskRow> also) {
        requireTeam(team);
        TaskRules.NewTask t = TaskRules.validateNew(subject, description, blockedBy, role, assignee, cfg);
        TaskRepository.Inserted r = repo.insert(team, t.subject(), t.description(), actor, t.blockedBy(), cfg.maxTasksPerTeam(),
                t.role(), t.assignee(), also);
        if (!r.missing().isEmpty()) {
            throw TaskRefusal.notFound("blockedBy names tasks that do not exist in team " + team + ": "
                    + r.missing().stream().map(TaskIds::format).collect(Collectors.joining(", "))
                    + "; create dependencies first (list_tasks shows the ids)");
        }
        if (r.full()) {
            throw new TaskRefusal(TaskRefusal.Code.LIMIT, "team " + team + " already has " + cfg.maxTasksPerTeam()
                    + " tasks, the most a board holds", null, null);
        }
        TaskRow row = r.task();
        Log.infof("team=%s agent=%s task=%s created", team, actor, TaskIds.format(row.id()));
        emit(team, actor, new TaskCreated(TaskIds.format(row.id()), row.subject(), row.status(), row.description(),
                row.blockedBy().stream().map(TaskIds::format).toList(), actor));
        if (row.unmet().isEmpty()) {
            availability.announce(team, List.of(row));
        }
        return row;
    }

    /** The team's board in creation order; expired claims are returned to pending first. */
    public List<TaskRow> list(String team) {
        requireTeam(team);
        expire(team);
        return repo.list(team);
    }

    /** One task. */
    public TaskRow get(String team, String rawId) {
        requireTeam(team);
        long id = TaskIds.require(rawId);
        expire(team);
        return find(team, id);
    }

    /**
     * Binds a task to a git worktree, by name. The task must exist; its status does not change.
     *
     * @throws TaskRefusal (not-found) when there is no such task
     */
    public TaskRow bindWorktree(String team, String rawId, String worktree) {
        return bindWorktree(team, rawId, worktree, InTransaction.none());
    }

    /** {@link #bindWorktree(String, String, String)}; {@code also} commits with the binding (a tool's record). */
    public TaskRow bindWorktree(String team, String rawId, String worktree, InTransaction<TaskRow> also) {
        requireTeam(team);
        long id = TaskIds.require(rawId);
        return repo.bindWorktree(team, id, worktree, also).orElseThrow(() -> notFound(team, id));
    }

    /** The team's tasks bound to {@code worktree} (expired claims read as pending). */
    public List<TaskRow> inWorktree(String team, String worktree) {
        requireTeam(team);
        expire(team);
        return repo.inWorktree(team, worktree);
    }

    /** Clears every task's binding to {@code worktree} (it was removed); returns the tasks that were bound. */
    public List<TaskRow> unbindWorktree(String team, String worktree) {
        return unbindWorktree(team, worktree, InTransaction.none());
    }

    /** {@link #unbindWorktree(String, String)}; {@code also} commits with the unbinding (a tool's record). */
    public List<TaskRow> unbindWorktree(String team, String worktree, InTransaction<List<TaskRow>> also) {
        requireTeam(team);
        return repo.unbindWorktree(team, worktree, also);
    }

    /**
     * Claims a task for {@code holder}. {@code leaseMs} null = no expiry. A holder that already holds the task (same
     * name, and same token unless identified by name) gets it again with a renewed lease (idempotent).
     */
    public Claim claim(String team, String rawId, Holder holder, Double leaseMs) {
        return claim(team, rawId, holder, leaseMs, InTransaction.none());
    }

    /** {@link #claim(String, String, Holder, Double)}; {@code also} commits with a claim that went through. */
    public Claim claim(String team, String rawId, Holder holder, Double leaseMs, InTransaction<TaskRepository.Claimed> also) {
        return claim(team, rawId, holder, null, leaseMs, also);
    }

    /** {@link #claim(String, String, Holder, Double, InTransaction)} by a caller of {@code role} (null: none). */
    public Claim claim(String team, String rawId, Holder holder, String role, Double leaseMs,
            InTransaction<TaskRepository.Claimed> also) {
        requireTeam(team);
        TaskRules.validateHolder(holder, cfg);
        long id = TaskIds.require(rawId);
        String token = holder.ownerOnly() ? UUID.randomUUID().toString() : holder.token();
        for (int attempt = 0; ; attempt++) {
            Optional<TaskRepository.Claimed> c = repo.claim(team, id, holder.agent(), role, token, holder.ownerOnly(), leaseMs,
                    also);
            if (c.isPresent()) {
                return claimed(team, holder, c.get(), "claim");
            }
            TaskRow row = find(team, id);
            Map<Long, TaskRow> deps = repo.findAll(team, row.unmet().stream().mapToLong(Long::longValue).toArray())
                    .stream().collect(Collectors.toMap(TaskRow::id, Function.identity()));
            TaskRefusal why = TaskRules.whyNotClaimable(row, holder, role, deps);
            if (why != null) {
                throw why;
            }
            if (attempt >= 2) { // it changed under us every time: say so rather than loop
                throw new TaskRefusal(TaskRefusal.Code.STATUS, TaskRules.label(row) + " is changing hands right now; try again",
                        null, null);
            }
        }
    }

    /**
     * Claims the oldest free, unblocked task for a teammate; empty when there is none. With a lease token, a retry
     * returns the task this token already holds instead of a second one.
     */
    public Optional<Claim> claimNext(String team, Holder holder, double leaseMs) {
        return claimNext(team, holder, null, leaseMs);
    }

    /** {@link #claimNext(String, Holder, double)} for a teammate of {@code role}: only tasks it may take (role/assignee). */
    public Optional<Claim> claimNext(String team, Holder holder, String role, double leaseMs) {
        requireTeam(team);
        TaskRules.validateHolder(holder, cfg);
        String token = holder.token() == null ? UUID.randomUUID().toString() : holder.token();
        return repo.claimNext(team, holder.agent(), role, token, leaseMs)
                .map(c -> claimed(team, holder, c, "claim-next"));
    }

    /** Most claimers in one batched claim (a replica hosts at most a few hundred teammates of a team). */
    public static final int MAX_CLAIM_BATCH = 200;

    /** A batched claim's outcome: the claims, in task id order (claimers that got nothing are absent). */
    public record BatchClaim(List<Claim> claims, int statements) {
    }

    /**
     * Claims for many teammates of one team at once (a teammate replica's idle teammates, coalesced):
     * one transaction gives each claimer its held task again (same token) or a free unblocked task it may take, the
     * oldest first (role / assignee respected, the pairing a maximum matching), and every fresh claim is recorded as
     * its own {@code task_claimed} event (via {@code claim-next}), in task id order, stored in that same transaction.
     */
    public BatchClaim claimBatch(String team, List<TaskRepository.BatchClaimer> claimers, double leaseMs) {
        if (team == null) {
            throw TaskRefusal.notFound("unknown team \"" + TaskIds.abbreviate(team) + "\"");
        }
        if (claimers == null || claimers.isEmpty() || claimers.size() > MAX_CLAIM_BATCH) {
            throw TaskRefusal.invalid("claimers must list 1.." + MAX_CLAIM_BATCH + " {agent, leaseToken, role?}");
        }
        Set<String> seen = new HashSet<>();
        for (TaskRepository.BatchClaimer b : claimers) {
            if (b == null) {
                throw TaskRefusal.invalid("every claimer needs agent and leaseToken");
            }
            TaskRules.validateHolder(Holder.withLease(b.agent(), b.token()), cfg);
            if (!seen.add(b.agent())) {
                throw TaskRefusal.invalid("agent " + b.agent() + " is named twice; a batch claims one task per agent");
            }
        }
        // the fresh claims' task_claimed events are stored in the claims' own transaction (EventService.storeIn: one
        // counter bump, one INSERT, one roster UPDATE), so a batch is one commit and a claim never lacks its event
        List<Event> stored = new ArrayList<>();
        TaskRepository.BatchClaimed got = repo.claimBatch(team, claimers, leaseMs, (c, claims) -> {
            List<Event> fresh = new ArrayList<>();
            for (TaskRepository.Claimed cl : claims) {
                TaskRow task = cl.task();
                if (cl.fresh()) {
                    fresh.add(Event.of(team, task.owner(), new TaskClaimed(TaskIds.format(task.id()), task.subject(),
                            task.status(), task.owner(), "claim-next", task.leaseUntil())));
                }
            }
            stored.addAll(events.storeIn(c, fresh));
        });
        if (!stored.isEmpty()) { // one line per batch: owner=task pairs
            Log.infof("team=%s claimed via=claim-batch claimers=%d tasks=%s", team, claimers.size(),
                    got.claims().stream().filter(TaskRepository.Claimed::fresh)
                            .map(c -> c.task().owner() + "=" + TaskIds.format(c.task().id())).toList());
        }
        events.committed(stored); // announced and published after the commit, as every event
        if (got.claims().isEmpty()) {
            // the team is checked only here, not in a round trip of its own before every batch: a claim implies its
            // team exists (tasks reference lead.teams), so only an empty answer can hide an unknown team (404)
            requireTeam(team);
        }
        return new BatchClaim(got.claims().stream().map(c -> new Claim(c.task(), c.task().leaseToken(), c.fresh())).toList(),
                got.statements());
    }

    /** Completes a task the holder holds; only the holder can, and a repeat by the same holder is harmless. */
    public Completion complete(String team, String rawId, Holder holder, String result) {
        return complete(team, rawId, holder, result, InTransaction.none());
    }

    /** {@link #complete(String, String, Holder, String)}; {@code also} commits with a completion that went through. */
    public Completion complete(String team, String rawId, Holder holder, String result,
            InTransaction<TaskRepository.Completed> also) {
        requireTeam(team);
        TaskRules.validateHolder(holder, cfg);
        long id = TaskIds.require(rawId);
        String res = result == null || result.isBlank() ? null : result.strip();
        if (res != null && res.length() > cfg.maxResultChars()) {
            throw TaskRefusal.invalid("result is longer than " + cfg.maxResultChars() + " characters");
        }
        Optional<TaskRepository.Completed> done = repo.complete(team, id, holder.agent(), holder.token(),
                holder.ownerOnly(), res, also);
        if (done.isEmpty()) {
            TaskRow row = find(team, id);
            TaskRefusal why = TaskRules.whyNotCompletable(row, holder);
            if (why != null) {
                throw why;
            }
            return new Completion(row, List.of(), true);
        }
        TaskRow task = done.get().task();
        List<TaskRow> unblocked = done.get().unblocked();
        Log.infof("team=%s agent=%s task=%s completed unblocked=%s", team, holder.agent(), TaskIds.format(id),
                unblocked.stream().map(t -> TaskIds.format(t.id())).toList());
        emit(team, holder.agent(), new TaskCompleted(TaskIds.format(task.id()), task.subject(), task.status(), task.owner(),
                unblocked.stream().map(u -> new TaskCompleted.Unblocked(TaskIds.format(u.id()), u.subject())).toList()));
        availability.announce(team, unblocked);
        return new Completion(task, unblocked, false);
    }

    /** Gives a held task back to pending; releasing a task nobody holds is a no-op. */
    public TaskRow release(String team, String rawId, Holder holder) {
        requireTeam(team);
        TaskRules.validateHolder(holder, cfg);
        long id = TaskIds.require(rawId);
        Optional<TaskRow> r = repo.release(team, id, holder.agent(), holder.token(), holder.ownerOnly());
        if (r.isPresent()) {
            Log.infof("team=%s agent=%s task=%s released", team, holder.agent(), TaskIds.format(id));
            clearRoster(team, id);
            availability.announce(team, List.of(r.get()).stream().filter(TaskRow::claimable).toList());
            return r.get();
        }
        TaskRow row = find(team, id);
        TaskRefusal why = TaskRules.whyNotReleasable(row, holder);
        if (why != null) {
            throw why;
        }
        return row;
    }

    /** Renews a live lease; a lost lease (expired, released, retaken) is refused so the worker stops. */
    public TaskRow heartbeat(String team, String rawId, Holder holder, double leaseMs) {
        requireTeam(team);
        TaskRules.validateHolder(holder, cfg);
        long id = TaskIds.require(rawId);
        return repo.heartbeat(team, id, holder.agent(), holder.token(), holder.ownerOnly(), leaseMs)
                .orElseThrow(() -> TaskRules.whyNotRenewable(find(team, id), holder));
    }

    private Claim claimed(String team, Holder holder, TaskRepository.Claimed c, String via) {
        TaskRow task = c.task();
        if (c.fresh()) {
            Log.infof("team=%s agent=%s task=%s claimed via=%s", team, holder.agent(), TaskIds.format(task.id()), via);
            emit(team, holder.agent(), new TaskClaimed(TaskIds.format(task.id()), task.subject(), task.status(),
                    task.owner(), via, task.leaseUntil()));
        }
        return new Claim(task, task.leaseToken(), c.fresh());
    }

    /** The outcome of a batched heartbeat: the ids renewed, and the ids whose lease is lost (stop working on them). */
    public record Renewal(List<String> renewed, List<String> lost) {
    }

    /**
     * Renews the leases of many teammates of one team in one statement (each teammate replica's heartbeat loop);
     * a lease that is expired, released or retaken is reported lost.
     */
    public Renewal heartbeatAll(String team, List<TaskRepository.Lease> leases, double leaseMs) {
        requireTeam(team);
        for (TaskRepository.Lease l : leases) {
            TaskRules.validateHolder(Holder.withLease(l.agent(), l.token()), cfg);
        }
        Set<Long> renewed = repo.heartbeatAll(team, leases, leaseMs);
        return new Renewal(renewed.stream().map(TaskIds::format).toList(), leases.stream().map(TaskRepository.Lease::id)
                .filter(id -> !renewed.contains(id)).distinct().map(TaskIds::format).toList());
    }

    private void expire(String team) {
        Map<Long, String> expired = repo.expireLeases(team);
        expired.forEach((id, owner) -> {
            Log.infof("team=%s agent=%s task=%s lease expired, back to pending", team, owner, TaskIds.format(id));
            clearRoster(team, id);
        });
        if (!expired.isEmpty()) {
            availability.announce(team, repo.findAll(team, expired.keySet().stream().mapToLong(Long::longValue).toArray())
                    .stream().filter(TaskRow::claimable).toList());
        }
    }

    /** The roster's {@code current_task} of whoever had this task is cleared (it went back to pending). */
    private void clearRoster(String team, long id) {
        try {
            roster.clearTask(team, TaskIds.format(id));
        } catch (RuntimeException e) {
            Log.warnf("team=%s task=%s roster not updated: %s", team, TaskIds.format(id), e.getMessage());
        }
    }

    private TaskRow find(String team, long id) {
        return repo.find(team, id).orElseThrow(() -> notFound(team, id));
    }

    private static TaskRefusal notFound(String team, long id) {
        return TaskRefusal.notFound("no task " + TaskIds.format(id) + " in team " + team + " (list_tasks shows the ids)");
    }

    private void requireTeam(String team) {
        if (team == null || !teams.exists(team)) {
            throw TaskRefusal.notFound("unknown team \"" + TaskIds.abbreviate(team) + "\"");
        }
    }

    /** The state change is committed; a failure to record its event must not undo it or fail the caller. */
    private void emit(String team, String agent, EventPayload payload) {
        try {
            events.record(Event.of(team, agent, payload));
        } catch (RuntimeException e) {
            Log.warnf("team=%s agent=%s event=%s not recorded: %s", team, agent, payload.type().wire(), e.getMessage());
        }
    }
}
