package dev.cohort.core.host;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.engine.AgentContext;
import dev.cohort.core.engine.AgentEngine;
import dev.cohort.core.engine.AgentSession;
import dev.cohort.core.engine.AgentState;
import dev.cohort.core.engine.LogContext;
import dev.cohort.core.engine.StateStore;
import dev.cohort.core.engine.StepSave;
import dev.cohort.core.engine.StopReason;
import dev.cohort.core.engine.TurnResult;
import dev.cohort.core.protocol.Json;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jboss.logging.Logger;

/**
 * Hosts the agents this replica owns, one actor per {@link AgentKey}, for any kind of agent (its
 * {@link AgentProgram}). Shared by lead-service and teammate-service; no Quarkus, no Kafka, no SQL here (the
 * {@link AgentStore} is a port).
 *
 * <p>An actor has a virtual thread only while its agent works; an idle or parked agent costs one map entry. Its
 * sequence, each step of it holding a running-turn slot ({@link HostSettings#maxRunningTurns}: beyond it, woken agents
 * wait for one in arrival order, they do not fail; the slot is given back after each turn so a long queue does not
 * starve others):
 * <pre>
 *   adopt (store.adopt bumps the version: only this host can save from now on)
 *   → open the session from the saved state
 *   → if a turn was in progress (a crash, a move, an answered approval): resume it (saved results are not run again)
 *   → loop: program.next() → a Turn: run it | Sleep(park): record the park and let the thread go
 * </pre>
 * Every step's save goes through the store with this actor's own last version (never a fresh read), and marks the
 * inputs the saved state now contains as injected in the same transaction. A save refused by the fence
 * ({@link OwnershipLostException}) means another host adopted the agent: this actor lets it go.
 *
 * <p><b>Kept sessions.</b> When the program allows it ({@link AgentProgram#keepIdleSession}), an agent that parks idle
 * keeps its session (and its version) in memory, at most {@link HostSettings#keptSessions} of them, the least recently
 * parked dropped first: its next wake-up goes straight to {@code program.next()}, without the adopt and the session
 * open. Safe because only this host writes the agent while it owns it (every save is still fenced by the kept
 * version: a save refused means another host took it, and this one lets go); a hand-over ({@link #detach}), an
 * adoption ({@link #adopt}: another host may have run it meanwhile) or a failure drops the kept session.
 *
 * <p>Parked agents (an approval, a protocol reply, an idle deadline) hold no thread and no session: the one sweeper
 * ({@link #sweep}, every {@link HostSettings#sweepInterval}) asks the program once for all waited-for ids and wakes
 * those settled or past their deadline; {@link #wake} on any inbox item wakes them at once.
 *
 * <p>Hand-over ({@link #detach}): a revoked partition or a shutdown detaches the actors; each stops at its next step
 * boundary with its turn saved in progress (not cancelled, not failed) and this waits, bounded, until none of them is
 * inside a turn, so the new owner does not resume a turn this host still writes. A wake-up for a handed-over agent is
 * ignored until {@link #adopt} takes it back.
 */
public final class AgentHost implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(AgentHost.class);

    private final AgentEngine engine;
    private final AgentStore store;
    private final AgentProgram program;
    private final HostSettings settings;

    private final ConcurrentHashMap<AgentKey, Actor> actors = new ConcurrentHashMap<>();
    private final AtomicLong storeRetries = new AtomicLong();
    /** Agents whose idle session is kept, least recently parked first (guarded by itself). */
    private final LinkedHashSet<AgentKey> keptOrder = new LinkedHashSet<>();
    /** Agents handed over: no wake-up starts them here until {@link #adopt} takes them back. */
    private final Set<AgentKey> released = ConcurrentHashMap.newKeySet();
    /** Parked agents with something to sweep for (a waited-for id or a deadline). */
    private final ConcurrentHashMap<AgentKey, Park> parked = new ConcurrentHashMap<>();
    /** Fair: agents waiting for a slot get one in arrival order. */
    private volatile Semaphore turnSlots;
    private volatile boolean stopping;
    private ScheduledExecutorService sweeper;

    public AgentHost(AgentEngine engine, AgentStore store, AgentProgram program, HostSettings settings) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.store = Objects.requireNonNull(store, "store");
        this.program = Objects.requireNonNull(program, "program");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.turnSlots = new Semaphore(settings.maxRunningTurns(), true);
    }

    /** Starts the sweeper (one platform thread for the whole host). */
    public synchronized AgentHost start() {
        if (sweeper == null) {
            sweeper = Executors.newSingleThreadScheduledExecutor(
                    Thread.ofPlatform().daemon().name("agent-host-sweeper").factory());
            long ms = settings.sweepInterval().toMillis();
            sweeper.scheduleWithFixedDelay(this::sweep, ms, ms, TimeUnit.MILLISECONDS);
        }
        return this;
    }

    public HostSettings settings() {
        return settings;
    }

    /** Something may be waiting for the agent (any inbox item): start or nudge its actor; ignored once handed over. */
    public void wake(AgentKey key) {
        // a late wake-up (an input consumed just before the revoke) must not adopt the agent back from its new owner
        if (stopping || released.contains(key)) {
            return;
        }
        actors.computeIfAbsent(key, Actor::new).nudge();
    }

    /**
     * Wakes the agent only if it is parked here on a wait (an approval it waits for was answered); false when it is
     * not parked here (its owner is another replica, or it already resumed).
     */
    public boolean wakeIfParked(AgentKey key) {
        Park p = parked.get(key);
        if (p != null && p.phase() != Phase.IDLE && parked.remove(key, p)) {
            wake(key);
            return true;
        }
        return false;
    }

    /** The agents on partitions assigned here: each is adopted (and resumed, if a turn was in progress). */
    public void adopt(Collection<AgentKey> keys) {
        for (AgentKey k : keys) {
            released.remove(k);
            dropKept(k); // another host may have run it meanwhile: read it again
            wake(k);
        }
    }

    /**
     * Hands the agents over (a revoked partition, a shutdown): no wake-up starts them here any more, each running
     * turn stops at its next step boundary and stays saved in progress, and this waits until none of them is inside
     * a turn or {@code timeout} has passed. Returns the agents out of any turn (those without an actor here
     * included); one still inside a step at the deadline (a long model call or tool run) stops at its next boundary,
     * and if the new owner adopted it meanwhile its late save is refused by the fence.
     */
    public Set<AgentKey> detach(Collection<AgentKey> keys, Duration timeout) {
        released.addAll(keys);
        List<Actor> hosted = new ArrayList<>();
        for (AgentKey k : keys) {
            parked.remove(k); // the new owner sweeps for it now
            dropKept(k);
            Actor a = actors.get(k);
            if (a != null) {
                a.detach();
                hosted.add(a);
            }
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        Set<AgentKey> stopped = new TreeSet<>(Comparator.comparing(AgentKey::id));
        stopped.addAll(keys);
        for (Actor a : hosted) {
            if (!a.awaitOutOfTurn(deadline)) {
                stopped.remove(a.key);
            }
        }
        if (stopped.size() < keys.size()) {
            List<String> still = keys.stream().filter(k -> !stopped.contains(k)).map(AgentKey::id).sorted().toList();
            LOG.warnf("agents %s still in a step after %s: handed over anyway (their late saves are refused)", still,
                    timeout);
        }
        return stopped;
    }

    /**
     * Ends the agent's turn (a user's interrupt): a running turn stops at its next step, cancelled; a parked one is
     * resumed cancelled, so its waiting call is answered "not run". False when no turn of it is running or parked here.
     */
    public boolean interrupt(AgentKey key) {
        Actor a = actors.get(key);
        if (a == null) {
            return false;
        }
        boolean running = a.interruptTurn();
        // parking registers itself before it checks for a cancel, and this checks for a parked turn after
        // cancelling: an interrupt that races with the turn parking is seen by one side or the other, never lost
        Park p = parked.get(key);
        if (p != null && p.phase() != Phase.IDLE && parked.remove(key, p)) {
            a.cancelOnResume = true;
            wake(key);
            return true;
        }
        return running;
    }

    /**
     * One sweep over the parked agents: one {@link AgentProgram#settled} call for every waited-for id, then wakes
     * those settled or past their deadline. Run by the sweeper thread; public so tests can drive it.
     */
    public void sweep() {
        if (parked.isEmpty() || stopping) {
            return;
        }
        Instant now = settings.clock().instant();
        List<String> ids = parked.values().stream().map(Park::waitingFor).filter(Objects::nonNull).distinct().toList();
        Set<String> settled = Set.of();
        if (!ids.isEmpty()) {
            try {
                settled = program.settled(ids);
            } catch (RuntimeException e) {
                LOG.warnf("cannot check what %d parked agents wait for (retried at the next sweep): %s", ids.size(),
                        e.toString());
            }
        }
        for (var e : parked.entrySet()) {
            Park p = e.getValue();
            if ((p.waitingFor() != null && settled.contains(p.waitingFor())) || p.expired(now)) {
                if (parked.remove(e.getKey(), p)) {
                    wake(e.getKey());
                }
            }
        }
    }

    /** How the agent is parked here, if it is (for the sweeper's registry; an idle agent without deadline is not). */
    public Optional<Park> parkedOn(AgentKey key) {
        return Optional.ofNullable(parked.get(key));
    }

    /** True while the agent has a thread here (running or waiting for a turn slot). */
    public boolean hosting(AgentKey key) {
        Actor a = actors.get(key);
        return a != null && a.running.get();
    }

    /** Agents with a thread here now. */
    public int hostingCount() {
        return (int) actors.values().stream().filter(a -> a.running.get()).count();
    }

    /** Agents parked here with something to sweep for. */
    public int parkedCount() {
        return parked.size();
    }

    /**
     * Agents busy here, each counted once: with a thread (in a turn or waiting for a turn slot) or parked on an
     * approval or a protocol reply (a turn or a protocol in progress). Idle agents are not busy.
     */
    public int busyCount() {
        Set<AgentKey> busy = new HashSet<>();
        actors.forEach((k, a) -> {
            if (a.running.get()) {
                busy.add(k);
            }
        });
        parked.forEach((k, p) -> {
            if (p.phase() != Phase.IDLE) {
                busy.add(k);
            }
        });
        return busy.size();
    }

    /**
     * The agents this host knows, by state, each counted once: {@code running} (a thread: in a turn or waiting for a
     * turn slot), {@code parked} (no thread, waiting on an approval or a protocol reply), {@code idle} (no thread,
     * waiting for input: parked idle with a deadline, or its idle session kept here). Agents handed over to another
     * replica, and agents that ended (an idle agent without deadline and without a kept session holds nothing here)
     * are not counted.
     */
    public Map<String, Integer> stateCounts() {
        int running = 0;
        int parkedCount = 0;
        int idle = 0;
        for (var e : actors.entrySet()) {
            if (released.contains(e.getKey())) {
                continue;
            }
            Park p = parked.get(e.getKey());
            if (e.getValue().running.get()) {
                running++;
            } else if (p != null && p.phase() != Phase.IDLE) {
                parkedCount++;
            } else if (p != null || e.getValue().kept.get() != null) {
                idle++;
            }
        }
        return Map.of("running", running, "parked", parkedCount, "idle", idle);
    }

    /** Agents whose idle session is kept here (at most {@link HostSettings#keptSessions}). */
    public int keptCount() {
        synchronized (keptOrder) {
            return keptOrder.size();
        }
    }

    /** True when the agent's idle session is kept here, so its next wake-up neither adopts nor opens a session. */
    public boolean keeps(AgentKey key) {
        Actor a = actors.get(key);
        return a != null && a.kept.get() != null;
    }

    /** Drops the agent's kept session, if any (its next wake-up adopts it and opens a new one). */
    private void dropKept(AgentKey key) {
        Actor a = actors.get(key);
        if (a != null) {
            a.kept.set(null);
        }
        synchronized (keptOrder) {
            keptOrder.remove(key);
        }
    }

    /** Keeps {@code a}'s idle session, dropping the least recently parked beyond the bound. */
    private void keep(Actor a, AgentSession s) {
        int max = settings.keptSessions();
        if (max <= 0) {
            return;
        }
        a.kept.set(s);
        List<AgentKey> evicted = new ArrayList<>();
        synchronized (keptOrder) {
            keptOrder.remove(a.key);
            keptOrder.add(a.key);
            var it = keptOrder.iterator();
            while (keptOrder.size() > max && it.hasNext()) {
                evicted.add(it.next());
                it.remove();
            }
        }
        for (AgentKey k : evicted) {
            Actor other = actors.get(k);
            if (other != null) {
                other.kept.set(null);
            }
        }
    }

    /** Turn slots in use. */
    public int runningTurns() {
        return settings.maxRunningTurns() - turnSlots.availablePermits();
    }

    /** Replaces the turn slots, for tests only, while no turn runs (a slot goes back to the semaphore it came from). */
    public void turnSlots(Semaphore slots) {
        turnSlots = Objects.requireNonNull(slots);
    }

    public Semaphore turnSlots() {
        return turnSlots;
    }

    /** What an actor does after an unexpected failure, for tests: see {@link Actor#abandonTurn}. */
    public void abandonTurn(AgentKey key, RuntimeException cause) {
        Actor a = actors.get(key);
        if (a == null) {
            throw new IllegalStateException("agent " + key + " was never hosted here");
        }
        a.abandonTurn(cause);
    }

    /**
     * Stops the sweeper and hands every agent over (bounded by {@link HostSettings#handoverTimeout}): resumed by the
     * next owner, or by this replica after a restart.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (sweeper != null) {
                sweeper.shutdownNow();
            }
        }
        stopping = true;
        detach(List.copyOf(actors.keySet()), settings.handoverTimeout());
    }

    private static Phase phaseOfWait(AgentState.Wait w) {
        return AgentState.Wait.APPROVAL.equals(w.kind()) ? Phase.WAITING_APPROVAL : Phase.WAITING_REPLY;
    }

    /** One agent. */
    private final class Actor {
        private final AgentKey key;
        private final AtomicBoolean running = new AtomicBoolean();
        private volatile boolean again;
        private volatile AgentSession session;
        /** The session of the idle agent, kept for its next wake-up (see {@link AgentHost}); null when none is. */
        final AtomicReference<AgentSession> kept = new AtomicReference<>();
        /** The state as adopted, until a session holds it (what a failure before the session can save). */
        private volatile AgentState adopted;
        /** Interrupted while parked: the next resume ends the turn instead of asking again. */
        volatile boolean cancelOnResume;
        /**
         * The version of this host's last adopt or write: the fence of its next write (never a fresh read's). -1
         * before the first adopt: no row has it, so nothing is saved for an agent this actor never adopted.
         */
        private volatile long version = -1;
        /** The park the store holds (null: the phase follows the saved state), so an unchanged park is not rewritten. */
        private Park stored;
        /** The slot this actor holds, from the semaphore it was taken from; null when it holds none. */
        private Semaphore slot;
        /** Completed when this actor is out of any turn (holds no slot): what a hand-over waits for. */
        private volatile CompletableFuture<Void> outOfTurn = CompletableFuture.completedFuture(null);

        Actor(AgentKey key) {
            this.key = key;
        }

        void nudge() {
            again = true;
            if (running.compareAndSet(false, true)) {
                Thread.ofVirtual().name("agent-" + key.id()).start(this::loop);
            }
        }

        void detach() {
            AgentSession s = session;
            if (s != null) {
                s.detach();
            }
        }

        boolean interruptTurn() {
            AgentSession s = session;
            if (s != null && s.turnInProgress()) {
                s.cancel();
                return true;
            }
            return false;
        }

        private boolean handedOver() {
            return stopping || released.contains(key);
        }

        /** Waits for a slot; false, holding none, when the agent was handed over meanwhile. */
        private boolean takeSlot() {
            Semaphore slots = turnSlots;
            slots.acquireUninterruptibly();
            slot = slots;
            // announced before the check: a hand-over either sees this turn or this sees the hand-over
            outOfTurn = new CompletableFuture<>();
            if (handedOver()) {
                freeSlot();
                return false;
            }
            return true;
        }

        private void freeSlot() {
            Semaphore s = slot;
            slot = null;
            if (s != null) {
                s.release();
            }
            outOfTurn.complete(null);
        }

        boolean awaitOutOfTurn(long deadlineNanos) {
            try {
                outOfTurn.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
                return true;
            } catch (TimeoutException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (ExecutionException e) {
                throw new IllegalStateException(e);
            }
        }

        private void loop() {
            // the agent's log fields for everything this thread logs (the loop adds turn, the orchestrator call)
            LogContext.Scope logScope = LogContext.agent(key.team(), key.name());
            try {
                while (true) {
                    again = false;
                    try {
                        work();
                    } catch (OwnershipLostException e) {
                        LOG.infof("agent=%s let go: %s", key, e.getMessage());
                        return;
                    } catch (RuntimeException e) {
                        if (storeUnavailable(e)) {
                            // the database is down or refusing connections: nothing is abandoned; the agent is
                            // adopted again from its last save once the store answers (a resumed turn, as after a
                            // crash: a call whose result was not saved is asked again with its id, never re-run)
                            retryLater(e);
                            return;
                        }
                        LOG.errorf(e, "agent=%s turn failed unexpectedly", key);
                        if (!abandonTurn(e)) {
                            retryLater(e); // the failure could not be recorded: try again from the store later
                            return;
                        }
                        // the next input gets a fresh turn; a failure that repeats at once is not retried in a loop
                        if (!again) {
                            return;
                        }
                        continue;
                    }
                    storeFailures = 0;
                    if (!again || handedOver()) {
                        return;
                    }
                }
            } finally {
                logScope.close();
                session = null;
                adopted = null;
                running.set(false);
                // a wake-up that raced with the exit
                if (again && !handedOver() && running.compareAndSet(false, true)) {
                    Thread.ofVirtual().name("agent-" + key.id()).start(this::loop);
                }
            }
        }

        private void work() {
            if (!takeSlot()) {
                return;
            }
            AgentSession s = kept.getAndSet(null);
            try {
                if (s != null && !handedOver()) {
                    synchronized (keptOrder) {
                        keptOrder.remove(key);
                    }
                    parked.remove(key);
                    session = s; // kept while idle: still owned (the kept version fences the saves)
                } else {
                    s = openSession();
                    if (s == null) {
                        return;
                    }
                }
            } finally {
                freeSlot();
            }
            while (takeSlot()) {
                try {
                    Next next = program.next(key, s);
                    if (next instanceof Next.Sleep sleep) {
                        park(sleep.park());
                        if (sleep.park().phase() == Phase.IDLE && !s.turnInProgress() && !handedOver()
                                && program.keepIdleSession(key)) {
                            keep(this, s);
                        }
                        return;
                    }
                    Next.Turn t = (Next.Turn) next;
                    boolean more;
                    // the turn, and what the program sends when it stops (a teammate's result), continue the trace its
                    // input arrived in (Tracing#ingress; the current one otherwise)
                    try (Scope ignored = engine.tracing().takeIngress(key.team(), key.name())
                            .makeCurrent()) {
                        more = finish(s, s.run(t.text(), t.source(), t.unattended(), t.inputIds(), t.promptId()));
                    }
                    if (!more) {
                        return;
                    }
                } finally {
                    freeSlot();
                }
            }
        }

        /**
         * Adopts the agent and opens its session, resuming a turn in progress; null when there is nothing to run
         * here (the agent does not exist any more, or its resumed turn parked again or was handed over).
         */
        private AgentSession openSession() {
            session = null;
            if (!program.exists(key)) {
                return null;
            }
            parked.remove(key);
            AgentRecord rec = store.adopt(key, settings.instance());
            version = rec.version();
            stored = rec.park();
            adopted = rec.state();
            AgentContext ctx = program.context(key, rec).withStore(stateStore());
            AgentSession s = engine.open(ctx, rec.state());
            session = s;
            program.adopted(key, rec, s);
            if (s.turnInProgress()) {
                String turnId = rec.state().turn().turnId();
                LOG.infof("agent=%s turn=%s resuming", key, turnId);
                program.resuming(key, turnId);
                if (cancelOnResume) {
                    cancelOnResume = false;
                    s.cancel();
                }
                if (!finish(s, s.resume())) {
                    return null; // parked again, or handed over
                }
            }
            return s;
        }

        /** Records the park (when it changed) and registers it with the sweeper when there is something to sweep for. */
        private void park(Park p) {
            if (!p.equals(stored)) {
                version = store.park(key, p, version);
                stored = p;
            }
            if (p.waitingFor() != null || p.deadline() != null) {
                parked.put(key, p);
            }
        }

        /** Hands the result to the program; false when the turn did not end (parked or detached). */
        private boolean finish(AgentSession s, TurnResult r) {
            if (r.reason() == StopReason.PARKED) {
                s.waiting().ifPresent(w -> parked.put(key, new Park(phaseOfWait(w), w.id(), null)));
                if (s.cancelled()) {
                    // interrupted just as it parked: resume it at once, cancelled
                    parked.remove(key);
                    cancelOnResume = true;
                    again = true;
                }
            }
            try (LogContext.Scope turn = LogContext.put(LogContext.TURN, r.turnId())) {
                program.stopped(key, r); // what the program logs of the turn's end carries the turn
            }
            return !r.inProgress();
        }

        /** The engine's StateStore over this actor's {@link #save}: step events go in the save when the store can. */
        private StateStore stateStore() {
            return new StateStore() {
                @Override
                public void save(StepSave step) {
                    Actor.this.save(step);
                }

                @Override
                public boolean storesEvents() {
                    return store.storesEvents();
                }
            };
        }

        /** The engine's StateStore: fenced by this actor's version; a hand-over asks the session to detach here too. */
        private void save(StepSave step) {
            if (handedOver()) {
                // a detach asked before run() began was reset by it, so ask again at each save
                AgentSession s = session;
                if (s != null) {
                    s.detach();
                }
            }
            version = store.save(key, step, version);
            stored = step.state().turn() == null ? Park.IDLE : null;
        }

        /**
         * An unexpected failure (a bug, the store down) must not wedge the agent: its turn in progress is ended (the
         * conversation is kept; the engine repairs unpaired calls on the next turn), fenced by this actor's own
         * version, so after a takeover nothing of the new owner's is touched, and the program reports it.
         */
        /** Consecutive store failures of this actor (its retry backoff); reset by a run that ends normally. */
        private int storeFailures;

        /**
         * Wakes this actor again after a backoff (0.5 s doubling to {@link #MAX_STORE_BACKOFF}), so an agent whose
         * store failed is not left stopped until some new input arrives. Its next run adopts it from the store.
         */
        private void retryLater(RuntimeException cause) {
            long ms = Math.min(MAX_STORE_BACKOFF.toMillis(), 500L << Math.min(storeFailures, 10));
            storeFailures++;
            LOG.warnf("agent=%s store unavailable (%s); adopted again from its last save in %d ms (attempt %d)", key,
                    cause.toString(), ms, storeFailures);
            kept.set(null);
            storeRetries.incrementAndGet();
            Thread.ofVirtual().name("agent-retry-" + key.id()).start(() -> {
                try {
                    Thread.sleep(ms);
                } catch (InterruptedException ie) {
                    return;
                }
                if (!handedOver()) {
                    nudge();
                }
            });
        }

        /** Ends the turn in progress as abandoned; false when that could not be recorded (the store refused it). */
        boolean abandonTurn(RuntimeException cause) {
            AgentSession s = session;
            String msg = "the turn failed unexpectedly: " + cause;
            try {
                AgentState st = s != null ? s.snapshot() : adopted;
                if (st == null || version < 0) {
                    // no state in hand: this actor holds no turn (never adopted, or already out of its loop)
                    LOG.infof("agent=%s failure outside a turn, nothing to end: %s", key, cause.toString());
                    return true;
                }
                String turnId = st.turn() == null ? null : st.turn().turnId();
                version = store.save(key, withoutTurn(st), version, List.of());
                stored = Park.IDLE;
                program.abandoned(key, turnId, msg);
                return true;
            } catch (OwnershipLostException lost) {
                LOG.infof("agent=%s failed turn not recorded: another host owns the agent now (%s)", key,
                        lost.getMessage());
                return true;
            } catch (RuntimeException again) {
                LOG.errorf(again, "agent=%s cannot record the failed turn", key);
                return false;
            }
        }
    }

    /** The longest wait between two attempts to adopt an agent whose store failed. */
    static final Duration MAX_STORE_BACKOFF = Duration.ofSeconds(30);

    /** Whether the store says {@code e} is its connection or server being away: a failure worth trying again later. */
    boolean storeUnavailable(Throwable e) {
        return store.unavailable(e);
    }

    /** Times an actor was scheduled to try again after its store failed (tests and metrics). */
    public long storeRetries() {
        return storeRetries.get();
    }

    /** The same state without its turn in progress (edited as JSON, so state fields added later are kept). */
    static AgentState withoutTurn(AgentState st) {
        try {
            ObjectNode json = (ObjectNode) Json.MAPPER.readTree(st.toJson());
            json.remove("turn");
            return AgentState.fromJson(json.toString());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an agent state that does not read back as JSON: " + e.getMessage(), e);
        }
    }
}
