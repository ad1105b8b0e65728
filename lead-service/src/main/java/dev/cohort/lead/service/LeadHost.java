package dev.cohort.lead.service;

import dev.cohort.core.engine.AgentContext;
import dev.cohort.core.engine.AgentSession;
import dev.cohort.core.engine.AgentState;
import dev.cohort.core.engine.InboxItem;
import dev.cohort.core.engine.TurnResult;
import dev.cohort.core.engine.permission.PermissionMode;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.PromptSource;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.lead.persistence.AgentRepository;
import dev.cohort.lead.persistence.AgentRepository.AgentRow;
import dev.cohort.lead.persistence.AgentRepository.OwnershipLostException;
import dev.cohort.lead.persistence.InboxRepository;
import dev.cohort.lead.persistence.InboxRepository.InboxRow;
import dev.cohort.lead.persistence.PromptRepository;
import dev.cohort.lead.persistence.PromptRepository.QueuedPrompt;
import dev.cohort.lead.persistence.TeamRepository;
import io.quarkus.logging.Log;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.annotation.PostConstruct;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Hosts the lead agent of every team whose partition this replica owns: one actor per team, on a virtual thread,
 * running that lead's turns one at a time in arrival order.
 *
 * <p>Sequence of an actor: take a running-turn slot ({@code cohort.lead.max-running-turns}; beyond it woken leads wait
 * in arrival order, a parked or idle lead holds none) → adopt the lead's saved state (or create it): adopting bumps
 * its version, so from then on only this replica can save it → if a turn was in progress (a crash or a
 * partition move interrupted it), resume it: calls whose results were saved are not run again → then take queued
 * prompts oldest first, each one turn → when no prompt waits but inbox messages do (a background job finished, a
 * teammate reported), run a turn for them → stop when there is nothing to do; {@link #wake} starts it again.
 * During a turn, prompts and inbox messages that arrive are injected at the next step (as the seed does with inbox
 * messages) and marked injected in the same transaction that saves the state containing them. Every save is
 * fenced by a version: a replica that lost the team cannot overwrite the new owner's state; its save is refused and
 * its actor lets go. The slot is given back after each turn, so a lead with a long queue does not starve others.
 *
 * <p>Hand-over ({@link #detachAll}): a revoked partition or a shutdown detaches the actors (each stops at its next
 * step boundary, the turn stays saved in progress, its prompt stays running) and waits, bounded by
 * {@code cohort.lead.handover-timeout}, until none of them is inside a turn, so the new owner does not resume a
 * turn the old one still writes.
 */
@ApplicationScoped
public class LeadHost {

    @Inject
    LeadEngine engine;

    @Inject
    AgentRepository agents;

    @Inject
    PromptRepository prompts;

    @Inject
    InboxRepository inbox;

    @Inject
    TeamRepository teams;

    @Inject
    EventService events;

    @Inject
    dev.cohort.core.llm.LlmGateway gateway;

    /** Inbox item ids: which table a drained item came from. */
    private static final String PROMPT = "prompt:";
    private static final String INBOX = "inbox:";

    /** Teams whose lead is parked on an approval (team → approval id): no thread, only this entry. */
    private final ConcurrentHashMap<String, String> parked = new ConcurrentHashMap<>();

    @Inject
    dev.cohort.lead.persistence.ApprovalRepository approvalRows;

    @Inject
    dev.cohort.lead.config.LeadConfig config;

    /** One thread for the whole replica checks the approvals parked turns wait for (answered elsewhere, expired). */
    private java.util.concurrent.ScheduledExecutorService parkedCheck;

    private final ConcurrentHashMap<String, Actor> actors = new ConcurrentHashMap<>();
    /** Teams whose partition was revoked: no wake-up starts their lead here until the partition comes back. */
    private final Set<String> released = ConcurrentHashMap.newKeySet();
    private volatile boolean stopping;

    /** This replica, recorded as the owner of every lead it adopts (for operators: the fence itself is the version). */
    private final String instance = java.lang.management.ManagementFactory.getRuntimeMXBean().getName() + "/"
            + UUID.randomUUID().toString().substring(0, 8);

    /** Slots for running turns ({@code cohort.lead.max-running-turns}); fair, so waiting leads get them in arrival order. */
    private volatile Semaphore turnSlots;

    @PostConstruct
    void init() {
        turnSlots = new Semaphore(checkedMaxRunningTurns(config.maxRunningTurns()), true);
    }

    /** The cap on running turns, refused when it would let no turn run. */
    static int checkedMaxRunningTurns(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("cohort.lead.max-running-turns must be at least 1 (it caps the turns a "
                    + "replica runs at once), was " + max);
        }
        return max;
    }

    /** Something may be waiting for the team's lead: start or nudge its actor (not for a team handed over). */
    public void wake(String team) {
        // a late wake-up (an input consumed just before the revoke) must not adopt the lead back from its new owner
        if (stopping || released.contains(team)) {
            return;
        }
        actors.computeIfAbsent(team, Actor::new).nudge();
    }

    /**
     * This replica no longer owns the team: its actor stops at the next step boundary and the turn in progress stays
     * saved in progress (detached, not cancelled), for the new owner to resume. Does not wait; see {@link #detachAll}.
     */
    public void release(String team) {
        detachAll(List.of(team), Duration.ZERO);
    }

    /**
     * Hands the teams' leads over (a revoked partition, a shutdown): no wake-up starts them here any more, each
     * running turn stops at its next step boundary and stays saved in progress (its prompt is not failed), and this
     * waits until none of them is inside a turn or {@code timeout} has passed. Returns the teams whose lead is out of
     * any turn (those without an actor here included); a lead still inside a turn at the deadline (a long model call
     * or tool run) stops at its next boundary, and if the new owner adopted it meanwhile its late save is refused.
     */
    public Set<String> detachAll(Collection<String> teamsHandedOver, Duration timeout) {
        released.addAll(teamsHandedOver);
        List<Actor> hosted = new ArrayList<>();
        for (String team : teamsHandedOver) {
            parked.remove(team); // the new owner checks the approval of a parked turn, not this replica
            Actor a = actors.get(team);
            if (a != null) {
                a.detach();
                hosted.add(a);
            }
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        Set<String> stopped = new TreeSet<>(teamsHandedOver);
        for (Actor a : hosted) {
            if (!a.awaitOutOfTurn(deadline)) {
                stopped.remove(a.team);
            }
        }
        if (stopped.size() < teamsHandedOver.size()) {
            Set<String> still = new TreeSet<>(teamsHandedOver);
            still.removeAll(stopped);
            Log.warnf("leads of teams %s still in a step after %s: handed over anyway (their late saves are refused)",
                    still, timeout);
        }
        return stopped;
    }

    /** Teams whose lead has unfinished work: resumed when their partitions are assigned here. */
    public void adopt(java.util.Collection<String> ownedTeams) {
        for (String t : ownedTeams) {
            released.remove(t);
            wake(t);
        }
    }

    /** Turn slots: replaced by tests only, while no turn runs (a slot is given back to the semaphore it came from). */
    Semaphore turnSlots() {
        return turnSlots;
    }

    void turnSlots(Semaphore slots) {
        turnSlots = slots;
    }

    /** True while the team's lead has a thread here (running or waiting for a turn slot), for tests. */
    boolean hosting(String team) {
        Actor a = actors.get(team);
        return a != null && a.running.get();
    }

    /** What an actor does after an unexpected failure, for tests: see {@link Actor#abandonTurn}. */
    void abandonTurn(String team, RuntimeException cause) {
        Actor a = actors.get(team);
        if (a == null) {
            throw new IllegalStateException("no lead of team " + team + " was hosted here");
        }
        a.abandonTurn(cause);
    }

    /** Interrupts the team's running turn between steps (Ctrl-C in `cohort chat`). */
    public boolean interrupt(String team) {
        Actor a = actors.get(team);
        if (a == null) {
            return false;
        }
        boolean running = a.interruptTurn();
        // parking records itself before it checks for a cancel, and this checks for a parked turn after cancelling:
        // an interrupt that races with the turn parking is seen by one side or the other, never lost
        if (parked.containsKey(team)) {
            // no thread holds a parked turn: resume it cancelled, so its waiting call is answered "not run"
            a.cancelOnResume = true;
            wake(team);
            return true;
        }
        return running;
    }

    void onStart(@Observes io.quarkus.runtime.StartupEvent ev) {
        parkedCheck = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("lead-parked-check").factory());
        long ms = Math.max(50, config.parkedCheckInterval().toMillis());
        parkedCheck.scheduleWithFixedDelay(this::checkParked, ms, ms, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /**
     * Wakes the parked leads whose approval was answered (on another replica, where {@link #wakeIfParked} could not
     * reach them) or expired: one query for all of them.
     */
    void checkParked() {
        if (parked.isEmpty() || stopping) {
            return;
        }
        try {
            java.util.Set<String> settled = new java.util.HashSet<>(approvalRows.settled(List.copyOf(parked.values())));
            parked.forEach((team, approval) -> {
                if (settled.contains(approval) && parked.remove(team, approval) && !released.contains(team)) {
                    wake(team);
                }
            });
        } catch (RuntimeException e) {
            Log.warnf("cannot check the approvals of parked turns (retried): %s", e.toString());
        }
    }

    /** An approval was answered here: wake the lead at once if this replica hosts its parked turn. */
    public void wakeIfParked(String team) {
        if (parked.remove(team) != null && !released.contains(team)) {
            wake(team);
        }
    }

    void onStop(@Observes ShutdownEvent ev) {
        if (parkedCheck != null) {
            parkedCheck.shutdownNow();
        }
        stopping = true;
        // handed over: resumed by the next owner (or this one after a restart), once none of them writes any more
        detachAll(List.copyOf(actors.keySet()), config.handoverTimeout());
    }

    /** One team's lead. */
    final class Actor {
        private final String team;
        private final AtomicBoolean running = new AtomicBoolean();
        private volatile boolean again;
        private volatile AgentSession session;
        /** Interrupted while parked: the next resume ends the turn instead of asking again. */
        volatile boolean cancelOnResume;
        /**
         * The version of this replica's last adopt or save: the fence of its next save (never a fresh read's). -1
         * before the first adopt: no row has it, so nothing is saved for a lead this actor never adopted.
         */
        private volatile long version = -1;
        /** The slot this actor holds, from the semaphore it was taken from; null when it holds none. */
        private Semaphore slot;
        /** Completed when this actor is out of any turn (holds no slot): what a hand-over waits for. */
        private volatile CompletableFuture<Void> outOfTurn = CompletableFuture.completedFuture(null);

        Actor(String team) {
            this.team = team;
        }

        void nudge() {
            again = true;
            if (running.compareAndSet(false, true)) {
                Thread.ofVirtual().name("lead-" + team).start(this::loop);
            }
        }

        void detach() {
            AgentSession s = session;
            if (s != null) {
                s.detach();
            }
        }

        /**
         * Waits for a running-turn slot (woken leads beyond the cap queue here, they do not fail); false, holding
         * none, when the lead was handed over meanwhile.
         */
        private boolean takeSlot() {
            Semaphore slots = turnSlots;
            slots.acquireUninterruptibly();
            slot = slots;
            // announced before the check: a hand-over either sees this turn or this sees the hand-over
            outOfTurn = new CompletableFuture<>();
            if (stopping || released.contains(team)) {
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

        /** True once this actor is out of any turn, false when the deadline ({@link System#nanoTime}) passed first. */
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

        boolean interruptTurn() {
            AgentSession s = session;
            if (s != null && s.turnInProgress()) {
                s.cancel();
                return true;
            }
            return false;
        }

        private void loop() {
            try {
                while (true) {
                    again = false;
                    try {
                        work();
                    } catch (OwnershipLostException e) {
                        Log.infof("team=%s agent=lead stopped: %s", team, e.getMessage());
                        return;
                    } catch (RuntimeException e) {
                        Log.errorf(e, "team=%s agent=lead turn failed unexpectedly", team);
                        abandonTurn(e);
                        // the next input gets a fresh turn; a failure that repeats at once is not retried in a loop
                        if (!again) {
                            return;
                        }
                        continue;
                    }
                    if (!again || stopping || released.contains(team)) {
                        return;
                    }
                }
            } finally {
                session = null;
                running.set(false);
                // a wake-up that raced with the exit
                if (again && !stopping && !released.contains(team) && running.compareAndSet(false, true)) {
                    Thread.ofVirtual().name("lead-" + team).start(this::loop);
                }
            }
        }

        private void work() {
            if (!takeSlot()) {
                return;
            }
            AgentSession s;
            try {
                if (!teams.exists(team)) {
                    return;
                }
                parked.remove(team);
                AgentRow row = agents.adopt(team, Ids.LEAD, AgentState.empty().toJson(), instance);
                version = row.version();
                AgentState state = AgentState.fromJson(row.stateJson());
                String mode = teams.find(team).map(t -> t.permissionMode()).orElse("default");
                AgentContext ctx = AgentContext.of(team, Ids.LEAD, AgentRole.LEAD, engine.workspace())
                        .withStore(this::save)
                        .withInbox(this::drain)
                        .withTeamContext(() -> "Team: " + team + ". Permission mode: " + mode + ".")
                        .withWorkspaceText(workspaceText(team))
                        .withMode(() -> PermissionMode.of(teams.find(team).map(t -> t.permissionMode()).orElse("default")))
                        .withCommandHooks(() -> teamHooks(team))
                        .withTeamUsage(() -> agents.teamUsage(team));
                s = engine.engine().open(ctx, state);
                session = s;
                // a prompt taken for a turn whose first save never happened (a crash in between) is queued again
                prompts.requeueUnstarted(team, s.turnInProgress() ? state.turn().turnId() : null);
                if (s.turnInProgress()) {
                    String turnId = state.turn().turnId();
                    String promptId = prompts.runningPromptOfTurn(team, turnId).orElse(null);
                    Log.infof("team=%s agent=lead turn=%s resuming after a restart or a partition move", team, turnId);
                    engine.label(team, promptId);
                    if (cancelOnResume) {
                        cancelOnResume = false;
                        s.cancel();
                    }
                    if (!finish(turnId, s.resume())) {
                        return; // parked on an approval again, or handed over
                    }
                }
            } finally {
                freeSlot();
            }
            while (takeSlot()) {
                try {
                    if (!nextTurn(s)) {
                        return;
                    }
                } finally {
                    freeSlot();
                }
            }
        }

        /** Runs the next turn (a queued prompt, or the pending inbox); false when there is none or it did not end. */
        private boolean nextTurn(AgentSession s) {
            while (true) {
                QueuedPrompt p = prompts.next(team).orElse(null);
                if (p != null) {
                    if (!prompts.markRunning(team, p.id())) {
                        continue;
                    }
                    if (!gateway.settings().hasApiKey()) {
                        noModel(p);
                        continue;
                    }
                    engine.label(team, p.id());
                    boolean cron = PromptSource.CRON.equals(p.source());
                    Log.infof("team=%s agent=lead prompt=%s turn starting (source=%s)", team, p.id(), p.source());
                    TurnResult r = s.run(cron ? "[cron] " + p.text() : p.text(), p.source(), cron);
                    return finish(r.turnId(), r);
                }
                List<InboxRow> waiting = inbox.pending(team, 50);
                if (!waiting.isEmpty()) {
                    engine.label(team, null);
                    // the turn's input is these messages: marked injected with the turn's first save
                    String text = String.join("\n\n", waiting.stream().map(InboxFormatter::format).toList());
                    TurnResult r = s.run(text, "inbox", false, waiting.stream().map(m -> INBOX + m.id()).toList());
                    return finish(r.turnId(), r);
                }
                return false;
            }
        }

        /**
         * An unexpected failure (a bug, the store down) must not wedge the team: the turn in progress is ended as
         * failed (its conversation is kept; the engine repairs unpaired calls on the next turn) and reported.
         */
        void abandonTurn(RuntimeException cause) {
            AgentSession s = session;
            String msg = "the lead's turn failed unexpectedly: " + cause;
            try {
                AgentState st;
                if (s != null) {
                    st = s.snapshot();
                } else {
                    AgentRow row = agents.find(team, Ids.LEAD).orElse(null);
                    if (row == null) {
                        return;
                    }
                    st = AgentState.fromJson(row.stateJson());
                }
                String turnId = st.turn() == null ? null : st.turn().turnId();
                // the same state without its turn in progress (edited as JSON, so new state fields are kept)
                var json = (com.fasterxml.jackson.databind.node.ObjectNode) dev.cohort.core.protocol.Json.MAPPER.readTree(st.toJson());
                json.remove("turn");
                // fenced by this actor's own version: after a takeover this is refused, and the new owner's state,
                // turn and prompts are left alone
                version = agents.save(team, Ids.LEAD, json.toString(), "idle", null, version, List.of(), List.of());
                String promptId = turnId == null ? null : prompts.runningPromptOfTurn(team, turnId).orElse(null);
                events.emit(team, Ids.LEAD, dev.cohort.core.protocol.payload.EngineError.of(null, msg)
                        .withPromptId(promptId));
                events.emit(team, Ids.LEAD, dev.cohort.core.protocol.payload.TurnCompleted.failedByHost(turnId, msg, promptId,
                        turnId == null ? null : prompts.idsOfTurn(team, turnId)));
                if (turnId != null) {
                    prompts.finishTurn(team, turnId, "failed");
                }
                // a prompt marked running before its turn's first save has no turn id yet
                prompts.failRunningWithoutTurn(team);
            } catch (OwnershipLostException lost) {
                Log.infof("team=%s agent=lead failed turn not recorded: another replica owns the lead now (%s)", team,
                        lost.getMessage());
            } catch (RuntimeException | com.fasterxml.jackson.core.JsonProcessingException again) {
                Log.errorf(again, "team=%s agent=lead cannot record the failed turn", team);
            } finally {
                engine.label(team, null);
            }
        }

        /** Without a key every call would fail with 401: say how to configure a model instead. */
        private void noModel(QueuedPrompt p) {
            String msg = "no model configured: set OPENAI_API_KEY (and OPENAI_BASE_URL, MODEL_ID for another OpenAI-compatible "
                    + "endpoint) and restart, or run `./cohort up --scripted-model` to try Cohort with the scripted model";
            events.emit(team, Ids.LEAD, dev.cohort.core.protocol.payload.EngineError.of(null, msg).withPromptId(p.id()));
            events.emit(team, Ids.LEAD, dev.cohort.core.protocol.payload.TurnCompleted.failedByHost(null, msg, p.id(), null));
            prompts.setStatus(team, p.id(), "failed");
        }

        /** Records how a turn ended; false when it did not end (parked on an approval, or detached). */
        private boolean finish(String turnId, TurnResult r) {
            engine.label(team, null);
            if (r.reason() == dev.cohort.core.engine.StopReason.PARKED) {
                session.waiting().ifPresent(w -> parked.put(team, w.id()));
                if (session.cancelled()) {
                    // interrupted just as it parked: resume it at once, cancelled
                    parked.remove(team);
                    cancelOnResume = true;
                    again = true;
                }
            }
            if (r.inProgress()) {
                Log.infof("team=%s agent=lead turn=%s %s: %s", team, turnId, r.reason().wire(), r.text());
                return false;
            }
            String status = r.reason() == dev.cohort.core.engine.StopReason.COMPLETED ? "done" : "failed";
            prompts.finishTurn(team, turnId, status);
            Log.infof("team=%s agent=lead turn=%s ended: %s", team, turnId, r.reason());
            return true;
        }

        /** StateStore: saves after every step, marking the prompts and inbox rows this state now contains as injected. */
        private void save(AgentState state, List<String> injectedIds) {
            List<String> p = new ArrayList<>();
            List<String> i = new ArrayList<>();
            for (String id : injectedIds) {
                if (id.startsWith(PROMPT)) {
                    p.add(id.substring(PROMPT.length()));
                } else if (id.startsWith(INBOX)) {
                    i.add(id.substring(INBOX.length()));
                }
            }
            if (stopping || released.contains(team)) {
                // handed over: a detach asked before run() began was reset by it, so ask again at each save
                AgentSession s = session;
                if (s != null) {
                    s.detach();
                }
            }
            String turnId = state.turn() == null ? null : state.turn().turnId();
            version = agents.save(team, Ids.LEAD, state.toJson(), turnId == null ? "idle" : "working", turnId, version, p, i);
        }

        /**
         * InboxSource: prompts and messages that arrived during the turn, injected at the next step. The engine hands
         * each id back with the save of the state that contains it, so nothing is remembered here.
         */
        private List<InboxItem> drain() {
            List<InboxItem> out = new ArrayList<>();
            for (QueuedPrompt p : prompts.pending(team, 20)) {
                out.add(new InboxItem(PROMPT + p.id(), (PromptSource.CRON.equals(p.source()) ? "[cron] " : "") + p.text()));
            }
            for (InboxRow m : inbox.pending(team, 50)) {
                out.add(new InboxItem(INBOX + m.id(), InboxFormatter.format(m)));
            }
            return out;
        }
    }

    /** The team's command hooks (API settings), read at each turn start: an edit applies from the next turn. */
    private List<dev.cohort.core.engine.hooks.CommandHook> teamHooks(String team) {
        String json = teams.find(team).map(t -> t.hooks()).orElse(null);
        return json == null ? List.of() : dev.cohort.core.engine.hooks.HookSettings.parse(
                dev.cohort.core.protocol.Json.read(json, com.fasterxml.jackson.databind.JsonNode.class), "team settings");
    }

    private String workspaceText(String team) {
        if (Ids.DEFAULT_TEAM.equals(team)) {
            return "the team's git repository (the tool runner's root)";
        }
        String own = teams.find(team).map(t -> t.workspace()).orElse(null);
        return own != null ? "the team's git repository (" + own + ")"
                : "the team's git repository (teams/" + team + " under the tool runner's root)";
    }
}
