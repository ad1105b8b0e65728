package dev.cohort.teammate.tasks;

import dev.cohort.core.host.AgentKey;
import dev.cohort.core.team.TeamMessages;
import dev.cohort.host.client.LeadInternalClient;
import dev.cohort.host.client.LeadTasks;
import dev.cohort.teammate.lifecycle.TeammateClock;
import dev.cohort.teammate.lifecycle.TeammateRepository.TeammateRow;
import dev.cohort.teammate.tasks.HeldTaskRepository.Held;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.Map;
import java.util.Optional;

/**
 * A teammate's tasks: the auto-claim of an idle teammate through the lead's claim-next (its name
 * and role from the host; a task naming another role or assignee is not offered; the concurrent auto-claims of this
 * replica's teammates of one team coalesced into one {@code claim-batch} request, {@link ClaimCoalescer}), the held task (persisted with the
 * teammate, so a failover keeps it), the cwd of its tool calls (the held task's worktree, from the next call after
 * the claim), and the slow jittered fallback poll under the pushed {@code task_available}.
 *
 * <p>The auto-claimed turn's input is {@code <auto-claimed>task_<n>: <subject></auto-claimed>}, then the description
 * as a quoted {@code <message type="task">} naming its creator (data, never instructions: a task cannot give orders to
 * whoever claims it), then the worktree if bound.
 */
@ApplicationScoped
public class TeammateTasks {

    @Inject
    LeadInternalClient lead;

    @Inject
    HeldTaskRepository held;

    @Inject
    ClaimConfig config;

    @Inject
    TeammateClock clock;

    private volatile ClaimCoalescer coalescer;

    /**
     * The cwd of each hosted teammate's tool calls, as last read (otherwise a database read at every
     * turn start and tool call). Only this replica writes a teammate's held task while it hosts it, and every such
     * write goes through {@link #bind} / {@link #clear}, which drop the entry; an adoption drops it too
     * ({@link #forget}), as the previous host may have changed it. A read runs inside {@code computeIfAbsent}, so a
     * drop that races with it waits for it and removes what it read.
     */
    private final Map<AgentKey, Optional<String>> cwds = new ConcurrentHashMap<>();

    /**
     * Most teammates whose cwd is kept: entries of teammates that moved to another replica are never dropped one by
     * one (nothing tells this replica), so past this many the whole map is dropped and refilled by reads. 10,000 is
     * ten times the 1,000 idle teammates a replica is sized for, and a refill costs one read per teammate.
     */
    static final int MAX_KEPT_CWDS = 10_000;

    public ClaimConfig config() {
        return config;
    }

    /** This replica's claim coalescer: concurrent auto-claims of one team go out as one batch. */
    ClaimCoalescer coalescer() {
        ClaimCoalescer c = coalescer;
        if (c == null) {
            synchronized (this) {
                c = coalescer;
                if (c == null) {
                    Double lease = seconds(config.lease());
                    coalescer = c = new ClaimCoalescer((team, claimers) -> lead.claimBatch(team, claimers, lease),
                            Math.min(200, config.maxBatch()));
                }
            }
        }
        return c;
    }

    /**
     * An idle teammate with nothing in its inbox asks the lead for the next task it may take; the turn input of the
     * claimed task, or {@code null} (auto-claim off, a task still held, none free, the lead unreachable: the next
     * wake-up or poll asks again).
     */
    public String autoClaim(TeammateRow row) {
        if (!config.enabled() || !mayAutoClaim(row)) {
            return null;
        }
        if (held.find(row.team(), row.name()).isPresent()) {
            return null; // it still holds a task (its turn ended without complete_task): one at a time
        }
        Optional<LeadTasks.Claim> claim;
        try {
            claim = config.batch() ? coalescer().claim(row.team(), row.name(), row.role())
                    : lead.claimNextAs(row.team(), row.name(), row.role(), null, seconds(config.lease()));
        } catch (RuntimeException e) {
            Log.warnf("team=%s agent=%s claim-next failed (asked again at the next wake-up): %s", row.team(), row.name(),
                    e.toString());
            return null;
        }
        if (claim.isEmpty()) {
            return null;
        }
        LeadTasks.Claim c = claim.get();
        bind(row.key(), c);
        Log.infof("team=%s agent=%s task=%s auto-claimed%s", row.team(), row.name(), c.task().id(),
                c.task().worktree() == null ? "" : " worktree=" + c.task().worktree());
        return autoClaimed(c.task());
    }

    /**
     * Gates of the auto-claim besides the switch: only a live teammate. A closed plan gate (plan mode or request_plan,
     * until a plan is approved) is checked by the caller ({@code TeammateProtocols.gated}): once the lead approves its
     * plan, a plan-mode teammate claims work like the others.
     */
    boolean mayAutoClaim(TeammateRow row) {
        return row.active();
    }

    /** Records a claim the lead granted (auto-claim or claim_task): the next tool call runs in its worktree. */
    public void bind(AgentKey key, LeadTasks.Claim c) {
        held.bind(key.team(), key.name(), c.task().id(), c.leaseToken(), c.task().worktree());
        cwds.remove(key);
    }

    /** The task the teammate holds, if any. */
    public Optional<Held> held(AgentKey key) {
        return held.find(key.team(), key.name());
    }

    /** The teammate no longer holds {@code taskId} (completed, lease lost): its tool calls run in the workspace again. */
    public boolean clear(AgentKey key, String taskId) {
        try {
            return held.clear(key.team(), key.name(), taskId);
        } finally {
            cwds.remove(key);
        }
    }

    /** Drops what is known of the teammate's held task (adopted here: another replica may have changed it). */
    public void forget(AgentKey key) {
        cwds.remove(key);
    }

    /** The host-chosen cwd of the teammate's next tool call: {@code wt:<name>} of its held task's worktree, else none. */
    public String cwd(AgentKey key) {
        if (cwds.size() > MAX_KEPT_CWDS) {
            cwds.clear();
        }
        return cwds.computeIfAbsent(key, k -> held.find(k.team(), k.name()).map(Held::worktree).map(w -> "wt:" + w))
                .orElse(null);
    }

    /**
     * When an idle teammate parked until {@code idleDeadline} wakes to poll the board: the sooner of the deadline and
     * now + the fallback poll ± jitter ({@code null} deadline: parked without one, e.g. shut down, left alone).
     */
    public Instant pollUntil(Instant idleDeadline) {
        if (idleDeadline == null || !config.enabled()) {
            return idleDeadline;
        }
        return pollUntil(idleDeadline, clock.instant(), config.fallbackPoll(), config.fallbackJitter(),
                ThreadLocalRandom.current().nextDouble(-1, 1));
    }

    /** {@link #pollUntil(Instant)} as a pure function of its inputs; {@code spread} in [-1, 1]. */
    static Instant pollUntil(Instant idleDeadline, Instant now, Duration poll, double jitter, double spread) {
        long ms = Math.max(1, Math.round(poll.toMillis() * (1 + jitter * spread)));
        Instant poll2 = now.plusMillis(ms);
        return poll2.isBefore(idleDeadline) ? poll2 : idleDeadline;
    }

    /** The input of an auto-claimed task's turn. */
    static String autoClaimed(LeadTasks.Task t) {
        StringBuilder b = new StringBuilder("<auto-claimed>").append(t.id()).append(": ")
                .append(TeamMessages.escape(t.subject())).append("</auto-claimed>\n");
        String description = t.description() == null || t.description().isBlank() ? "(no description)" : t.description();
        b.append(TeamMessages.element(t.id(), t.createdBy() == null ? "lead" : t.createdBy(), "task", description,
                TeamMessages.INJECT_CAP));
        if (t.worktree() != null) {
            b.append("\nThe task is bound to worktree '").append(t.worktree()).append("' (wt:").append(t.worktree())
                    .append("): your tool calls run there now, relative paths resolve inside it.");
        }
        b.append("\nYou hold this task; when it is done, call complete_task with task_id \"").append(t.id()).append("\".");
        return b.toString();
    }

    static Double seconds(Duration d) {
        return d.toMillis() / 1000.0;
    }
}
