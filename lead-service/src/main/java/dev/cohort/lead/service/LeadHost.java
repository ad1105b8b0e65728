package dev.cohort.lead.service;

import dev.cohort.core.engine.AgentContext;
import dev.cohort.core.engine.AgentSession;
import dev.cohort.core.engine.AgentState;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Hosts the lead agent of every team whose partition this replica owns: one actor per team, on a virtual thread,
 * running that lead's turns one at a time in arrival order.
 *
 * <p>Sequence of an actor: load the lead's saved state (or create it) → if a turn was in progress (a crash or a
 * partition move interrupted it), resume it: calls whose results were saved are not run again → then take queued
 * prompts oldest first, each one turn → when no prompt waits but inbox messages do (a background job finished, a
 * teammate reported), run a turn for them → stop when there is nothing to do; {@link #wake} starts it again.
 * During a turn, prompts and inbox messages that arrive are injected at the next step (as the seed does with inbox
 * messages) and marked injected in the same transaction that saves the state containing them. Every save is
 * fenced by a version: a replica that lost the team cannot overwrite the new owner's state.
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

    private final ConcurrentHashMap<String, Actor> actors = new ConcurrentHashMap<>();
    private final Set<String> released = ConcurrentHashMap.newKeySet();
    private volatile boolean stopping;

    /** Something may be waiting for the team's lead: start or nudge its actor. */
    public void wake(String team) {
        if (stopping) {
            return;
        }
        released.remove(team);
        actors.computeIfAbsent(team, Actor::new).nudge();
    }

    /** This replica no longer owns the team: stop its actor between steps (its state is saved). */
    public void release(String team) {
        released.add(team);
        Actor a = actors.get(team);
        if (a != null) {
            a.cancel();
        }
    }

    /** Teams whose lead has unfinished work: resumed when their partitions are assigned here. */
    public void adopt(java.util.Collection<String> ownedTeams) {
        for (String t : ownedTeams) {
            wake(t);
        }
    }

    /** Interrupts the team's running turn between steps (Ctrl-C in `cohort chat`). */
    public boolean interrupt(String team) {
        Actor a = actors.get(team);
        return a != null && a.interruptTurn();
    }

    void onStop(@Observes ShutdownEvent ev) {
        stopping = true;
        actors.values().forEach(Actor::cancel);
    }

    /** One team's lead. */
    final class Actor {
        private final String team;
        private final AtomicBoolean running = new AtomicBoolean();
        private volatile boolean again;
        private volatile AgentSession session;
        private long version;
        private final List<String> drainedPrompts = new ArrayList<>();
        private final List<String> drainedInbox = new ArrayList<>();

        Actor(String team) {
            this.team = team;
        }

        void nudge() {
            again = true;
            if (running.compareAndSet(false, true)) {
                Thread.ofVirtual().name("lead-" + team).start(this::loop);
            }
        }

        void cancel() {
            AgentSession s = session;
            if (s != null) {
                s.cancel();
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
            if (!teams.exists(team)) {
                return;
            }
            AgentRow row = agents.loadOrCreate(team, Ids.LEAD, AgentState.empty().toJson());
            version = row.version();
            AgentState state = AgentState.fromJson(row.stateJson());
            String mode = teams.find(team).map(t -> t.permissionMode()).orElse("default");
            AgentContext ctx = AgentContext.of(team, Ids.LEAD, AgentRole.LEAD, engine.workspace())
                    .withStore(this::save)
                    .withInbox(this::drain)
                    .withTeamContext(() -> "Team: " + team + ". Permission mode: " + mode + ".");
            ctx = new AgentContext(ctx.team(), ctx.agent(), ctx.role(), ctx.cwd(), workspaceText(team), ctx.allowlist(),
                    () -> PermissionMode.of(teams.find(team).map(t -> t.permissionMode()).orElse("default")), ctx.rules(),
                    () -> teamHooks(team), ctx.workspace(), ctx.store(), ctx.inbox(), ctx.teamContext());
            AgentSession s = engine.engine().open(ctx, state);
            session = s;
            // a prompt taken for a turn whose first save never happened (a crash in between) is queued again
            prompts.requeueUnstarted(team, s.turnInProgress() ? state.turn().turnId() : null);
            if (s.turnInProgress()) {
                String turnId = state.turn().turnId();
                String promptId = prompts.runningPromptOfTurn(team, turnId).orElse(null);
                Log.infof("team=%s agent=lead turn=%s resuming after a restart or a partition move", team, turnId);
                engine.label(team, promptId);
                finish(turnId, s.resume());
            }
            while (!stopping && !released.contains(team)) {
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
                    finish(r.turnId(), r);
                    continue;
                }
                List<InboxRow> waiting = inbox.pending(team, 50);
                if (!waiting.isEmpty()) {
                    engine.label(team, null);
                    synchronized (this) {
                        waiting.forEach(m -> drainedInbox.add(m.id()));
                    }
                    String text = String.join("\n\n", waiting.stream().map(InboxFormatter::format).toList());
                    TurnResult r = s.run(text, "inbox", false);
                    finish(r.turnId(), r);
                    continue;
                }
                return;
            }
        }

        /**
         * An unexpected failure (a bug, the store down) must not wedge the team: the turn in progress is ended as
         * failed (its conversation is kept; the engine repairs unpaired calls on the next turn) and reported.
         */
        private void abandonTurn(RuntimeException cause) {
            AgentSession s = session;
            String msg = "the lead's turn failed unexpectedly: " + cause;
            try {
                AgentRow row = agents.find(team, Ids.LEAD).orElse(null);
                if (row == null) {
                    return;
                }
                AgentState st = s != null ? s.snapshot() : AgentState.fromJson(row.stateJson());
                String turnId = st.turn() == null ? null : st.turn().turnId();
                // the same state without its turn in progress (edited as JSON, so new state fields are kept)
                var json = (com.fasterxml.jackson.databind.node.ObjectNode) dev.cohort.core.protocol.Json.MAPPER.readTree(st.toJson());
                json.remove("turn");
                agents.save(team, Ids.LEAD, json.toString(), "idle", null, row.version(), List.of(), List.of());
                String promptId = turnId == null ? null : prompts.runningPromptOfTurn(team, turnId).orElse(null);
                var data = Event.newData().put("message", msg);
                if (promptId != null) {
                    data.put("promptId", promptId);
                }
                events.emit(team, Ids.LEAD, EventType.ERROR, data);
                var done = Event.newData().put("reason", "error").put("status", "failed").put("message", msg);
                if (turnId != null) {
                    done.put("turnId", turnId);
                    prompts.idsOfTurn(team, turnId).forEach(done.putArray("promptIds")::add);
                }
                if (promptId != null) {
                    done.put("promptId", promptId);
                }
                events.emit(team, Ids.LEAD, EventType.TURN_COMPLETED, done);
                if (turnId != null) {
                    prompts.finishTurn(team, turnId, "failed");
                }
                // a prompt marked running before its turn's first save has no turn id yet
                prompts.failRunningWithoutTurn(team);
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
            events.emit(team, Ids.LEAD, EventType.ERROR, Event.newData().put("promptId", p.id()).put("message", msg));
            events.emit(team, Ids.LEAD, EventType.TURN_COMPLETED, Event.newData().put("promptId", p.id())
                    .put("reason", "error").put("status", "failed").put("message", msg));
            prompts.setStatus(team, p.id(), "failed");
        }

        private void finish(String turnId, TurnResult r) {
            engine.label(team, null);
            String status = r.reason() == dev.cohort.core.engine.StopReason.COMPLETED ? "done" : "failed";
            prompts.finishTurn(team, turnId, status);
            Log.infof("team=%s agent=lead turn=%s ended: %s", team, turnId, r.reason());
        }

        /** StateStore: saves after every step, marking what this state now contains as injected. */
        private void save(AgentState state) {
            List<String> p;
            List<String> i;
            synchronized (this) {
                p = List.copyOf(drainedPrompts);
                i = List.copyOf(drainedInbox);
            }
            String turnId = state.turn() == null ? null : state.turn().turnId();
            version = agents.save(team, Ids.LEAD, state.toJson(), turnId == null ? "idle" : "working", turnId, version, p, i);
            synchronized (this) {
                drainedPrompts.removeAll(p);
                drainedInbox.removeAll(i);
            }
        }

        /** InboxSource: prompts and messages that arrived during the turn, injected at the next step. */
        private List<String> drain() {
            List<String> out = new ArrayList<>();
            synchronized (this) {
                for (QueuedPrompt p : prompts.pending(team, 20)) {
                    if (!drainedPrompts.contains(p.id())) {
                        drainedPrompts.add(p.id());
                        out.add((PromptSource.CRON.equals(p.source()) ? "[cron] " : "") + p.text());
                    }
                }
                for (InboxRow m : inbox.pending(team, 50)) {
                    if (!drainedInbox.contains(m.id())) {
                        drainedInbox.add(m.id());
                        out.add(InboxFormatter.format(m));
                    }
                }
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
