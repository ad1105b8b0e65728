package dev.cohort.teammate.tasks;

import dev.cohort.host.client.LeadTasks;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Coalesces the concurrent auto-claims of one replica's teammates of one team into batched claims:
 * when a {@code task_available} wakes the replica's idle teammates, each asks here instead of making its own
 * claim-next request; the caller that finds no request in flight for the team sends one {@code claim-batch} for every
 * claim queued meanwhile (itself included, at most {@code maxBatch}), each caller gets its own answer, and the first
 * caller still queued sends the next batch (leader/follower, as the lead's event group commit). Alone, a claim is a
 * batch of one. One agent is at most once in a batch (a second claim of the same agent waits for the next one).
 *
 * <p>Every claim carries a lease token chosen here before the first attempt, so the lead client's retries of a batch
 * give each claimer the same task again, never a second one. A failed batch fails every claim in it (the teammates
 * ask again at their next wake-up or poll, as after a failed claim-next).
 */
public final class ClaimCoalescer {

    /** The batched call: the team, its claimers → agent → claim for those that got one. */
    @FunctionalInterface
    public interface BatchCall {
        Map<String, LeadTasks.Claim> claim(String team, List<LeadTasks.BatchClaimer> claimers);
    }

    private final BatchCall call;
    private final int maxBatch;
    private final ConcurrentHashMap<String, TeamQueue> teams = new ConcurrentHashMap<>();

    public ClaimCoalescer(BatchCall call, int maxBatch) {
        if (maxBatch < 1) {
            throw new IllegalArgumentException("maxBatch must be at least 1, not " + maxBatch);
        }
        this.call = call;
        this.maxBatch = maxBatch;
    }

    /** Claims the next task {@code agent} of {@code role} may take, in a batch with its replica's concurrent claims. */
    public Optional<LeadTasks.Claim> claim(String team, String agent, String role) {
        return teams.computeIfAbsent(team, t -> new TeamQueue(t)).claim(
                new LeadTasks.BatchClaimer(agent, UUID.randomUUID().toString(), role));
    }

    /** Claims of {@code team} waiting for the next batch (tests: a batch in flight, others queued behind it). */
    int queued(String team) {
        TeamQueue q = teams.get(team);
        if (q == null) {
            return 0;
        }
        synchronized (q) {
            return q.queue.size();
        }
    }

    /** The leader/follower queue of one team: {@code sending} false ⇒ nobody is queued. */
    private final class TeamQueue {
        private final String team;
        private final LinkedList<Pending> queue = new LinkedList<>();
        private boolean sending;

        TeamQueue(String team) {
            this.team = team;
        }

        Optional<LeadTasks.Claim> claim(LeadTasks.BatchClaimer who) {
            Pending mine = new Pending(who);
            boolean leader;
            synchronized (this) {
                queue.add(mine);
                leader = !sending;
                sending = true;
            }
            if (!leader && !mine.awaitDoneOrPromoted()) {
                return mine.result();
            }
            // the leader: its own claim is at the head of the queue, so it is in this batch
            List<Pending> batch = new ArrayList<>();
            synchronized (this) {
                Set<String> agents = new HashSet<>();
                for (Iterator<Pending> it = queue.iterator(); it.hasNext() && batch.size() < maxBatch; ) {
                    Pending p = it.next();
                    if (agents.add(p.who.agent())) {
                        batch.add(p);
                        it.remove();
                    }
                }
            }
            try {
                send(batch);
            } finally {
                Pending next;
                synchronized (this) {
                    next = queue.peek();
                    sending = next != null;
                }
                if (next != null) {
                    next.promote(); // the next batch is sent by its first caller
                }
            }
            return mine.result();
        }

        private void send(List<Pending> batch) {
            try {
                Map<String, LeadTasks.Claim> got = call.claim(team, batch.stream().map(p -> p.who).toList());
                for (Pending p : batch) {
                    p.finish(Optional.ofNullable(got.get(p.who.agent())), null);
                }
            } catch (RuntimeException e) {
                for (Pending p : batch) {
                    p.finish(null, e);
                }
            }
        }
    }

    /**
     * A queued claim: done with a result or an error, or promoted to send the next batch. A future, not a monitor
     * wait: the waiters are teammates' virtual threads, and a future's wait does not pin their carrier.
     */
    private static final class Pending {
        final LeadTasks.BatchClaimer who;
        private final CompletableFuture<Boolean> promotedOrDone = new CompletableFuture<>();
        private volatile Optional<LeadTasks.Claim> claim;
        private volatile RuntimeException error;

        Pending(LeadTasks.BatchClaimer who) {
            this.who = who;
        }

        void finish(Optional<LeadTasks.Claim> claim, RuntimeException error) {
            this.claim = claim;
            this.error = error;
            promotedOrDone.complete(false);
        }

        void promote() {
            promotedOrDone.complete(true);
        }

        /** Waits (not interruptibly: others depend on a promoted caller) and returns true when promoted. */
        boolean awaitDoneOrPromoted() {
            boolean interrupted = false;
            while (true) {
                try {
                    boolean promoted = promotedOrDone.get();
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                    return promoted;
                } catch (InterruptedException ex) {
                    interrupted = true;
                } catch (ExecutionException ex) {
                    throw new IllegalStateException(ex); // never completed exceptionally
                }
            }
        }

        Optional<LeadTasks.Claim> result() {
            if (error != null) {
                throw error;
            }
            return claim;
        }
    }
}
