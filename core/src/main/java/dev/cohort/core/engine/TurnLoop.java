package dev.cohort.core.engine;

import dev.cohort.core.engine.compact.Layers;
import dev.cohort.core.engine.hooks.Hooks;
import dev.cohort.core.engine.prompt.PromptCache;
import dev.cohort.core.protocol.payload.ModelRetry;
import dev.cohort.core.tools.ToolEffect;
import dev.cohort.core.tools.ToolNames;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * One loop over a conversation: the agent's own turn ({@link LoopPolicy#PERSISTENT}) or a subagent's
 * ({@link LoopPolicy#EPHEMERAL}). It only holds the sequence; its parts do the work: {@link ToolOrchestrator} (the
 * gates and the tools), {@link ModelCaller} (retries, fallback, truncation), {@link ContextManager} (prompt,
 * compaction, repair), {@link TurnEvents} (what watchers see). Every step ends with a save (persistent loops), so
 * a host that restores the state resumes from the last step. The turn's first step (its input) is saved beside its
 * first model request and joined before the reply is used ({@link AgentSession#saveBehind}): an input lost with it is
 * still pending in its source and is taken again. Any other step, a tool result above all, is saved before the loop
 * goes on:
 *
 * <pre>
 * while (true) {
 *     stop = tools.runPending();             // unanswered calls; saved results are never run again; may park
 *     if (final answer) → Stop hooks may force a continuation, else COMPLETED
 *     stop = guards();                       // cancel, detach, model-call cap, budgets
 *     inject();                              // inbox items, todo reminder, last-step notice
 *     stop = callModel();                    // compaction + repair → one call with recovery → reply appended
 * }
 * </pre>
 */
final class TurnLoop {
    private static final Logger LOG = Logger.getLogger(TurnLoop.class);

    private final AgentEngine engine;
    private final AgentSession session;
    final TurnContext ctx;
    private final TurnState turn;
    private final LiveConversation conv;
    private final TurnEvents events;
    private final Hooks hooks;
    private final ModelCaller model;
    private final ContextManager context;
    private final ToolOrchestrator tools;

    TurnLoop(AgentEngine engine, AgentSession session, TurnContext ctx, TurnState turn, LiveConversation conv,
            TurnEvents events, Hooks hooks, PromptCache cache) {
        this.engine = engine;
        this.session = session;
        this.ctx = ctx;
        this.turn = turn;
        this.conv = conv;
        this.events = events;
        this.hooks = hooks;
        LoopScope scope = new LoopScope(engine, ctx, turn, conv, events, hooks, this::step);
        this.model = new ModelCaller(scope, session);
        ContextManager.SessionView view = new ContextManager.SessionView(
                () -> session.todos().items().stream().map(t -> "- [" + t.status() + "] " + t.content())
                        .collect(Collectors.joining("\n")),
                session::loadedSkills, session.agent().workspaceText(), session.agent().teamContext());
        this.context = new ContextManager(scope, model, cache, view, this::count);
        this.tools = new ToolOrchestrator(scope, session.permissionPolicy(), session.agent().mode(), session,
                this::apply, this::absorbSubagentUsage);
    }

    TurnResult run() {
        long t0 = System.nanoTime();
        Span span = EngineSpans.turn(engine.tracing, ctx);
        try (LogContext.Scope turnScope = LogContext.put(LogContext.TURN, ctx.turnId());
                Scope ignored = span.makeCurrent()) {
            if (ctx.policy().usesMemory()) {
                engine.memory.loopStarting(ctx); // memories other processes wrote are seen from this turn's first call
            }
            TurnResult r = loop();
            if (ctx.policy().announcesEnd() && !r.reason().suspended()) {
                engine.metrics.turnEnded(r.reason(), Duration.ofNanos(System.nanoTime() - t0));
            }
            EngineSpans.turnEnded(span, r);
            return r;
        } catch (RuntimeException | Error e) {
            EngineSpans.failed(span, e);
            throw e;
        } finally {
            span.end();
        }
    }

    private TurnResult loop() {
        while (true) {
            ToolOrchestrator.Stop stop = tools.runPending();
            if (stop != null) {
                return end(stop);
            }
            if (conv.endsWithFinalAnswer()) {
                // a final answer (also one saved just before a crash): Stop hooks may force a continuation
                if (forcedToContinue()) {
                    continue;
                }
                return end(new ToolOrchestrator.Stop(StopReason.COMPLETED, conv.last().content()));
            }
            stop = guards();
            if (stop != null) {
                return end(stop);
            }
            inject();
            if (session.cancelled()) {
                // a cancel asked while the inbox was drained (e.g. a teammate's shutdown at this step boundary): no
                // further model call
                return end(new ToolOrchestrator.Stop(StopReason.CANCELLED, "The turn was cancelled."));
            }
            stop = callModel();
            if (stop != null) {
                return end(stop);
            }
        }
    }

    private boolean forcedToContinue() {
        if (!ctx.policy().runsStopHooks() || turn.stopContinuations >= engine.settings.maxStopContinuations()) {
            return false;
        }
        Optional<String> force = hooks.stop(conv.copy(), ctx);
        if (force.isEmpty()) {
            return false;
        }
        conv.add(Message.user(force.get()));
        turn.stopContinuations++;
        step();
        return true;
    }

    private ToolOrchestrator.Stop guards() {
        sendWarnings();
        if (session.cancelled()) {
            return new ToolOrchestrator.Stop(StopReason.CANCELLED, "The turn was cancelled.");
        }
        if (session.detached()) {
            return new ToolOrchestrator.Stop(StopReason.DETACHED, "The turn was handed over.");
        }
        if (turn.modelCalls >= ctx.maxCalls()) {
            return new ToolOrchestrator.Stop(StopReason.MAX_MODEL_CALLS, "Stopped: this turn reached its limit of "
                    + ctx.maxCalls() + " model calls.");
        }
        Optional<Budgets.Breach> over = budgetExceeded();
        if (over.isPresent() && session.agent().budgets() instanceof BudgetSource cached && cached.reread()) {
            over = budgetExceeded(); // a cached budget: confirmed at its source before the turn stops on it
        }
        if (over.isEmpty()) {
            return null;
        }
        if (ctx.policy().countsAgentUsage()) {
            events.budgetExceeded(over.get()); // a subagent's stop is the parent's at its next step
        }
        return new ToolOrchestrator.Stop(StopReason.BUDGET_EXCEEDED, over.get().text());
    }

    /**
     * The budgets in force: the engine's ({@code cohort.engine.budgets.*}) with the team's own over them, read at
     * every step (a budget raised through the API counts from the next step).
     */
    private Budgets budgets() {
        Budgets.Overrides o = session.agent().budgets().get();
        if (o == null) {
            return engine.settings.budgets();
        }
        try {
            return engine.settings.budgets().with(o);
        } catch (IllegalArgumentException e) {
            LOG.warnf("the team's budgets are invalid (%s); using the engine's. team=%s agent=%s", e.getMessage(),
                    ctx.team(), ctx.agent());
            return engine.settings.budgets();
        }
    }

    /** Warns of every 80 % mark {@code u} (one call's usage, counted next) crosses; own loops only. */
    private void warnCrossings(Usage u, boolean agentToo) {
        if (!ctx.policy().countsAgentUsage()) {
            return;
        }
        Budgets b = budgets();
        Usage team = agentToo && b.limitsTeam() ? session.agent().teamUsage().get() : null;
        Usage today = agentToo && b.limitsTeamDay() ? session.agent().teamUsageToday().get() : null;
        for (Budgets.Breach w : b.crossed(ctx.agentId(), ctx.team(), turn.usage, agentToo ? session.usage() : null, team,
                today, u)) {
            if (!Budgets.TEAM_DAY.equals(w.scope()) || session.firstDayWarning(w)) {
                warnings.add(w);
            }
        }
    }

    /** The warnings found since the last ones were sent. */
    private final List<Budgets.Breach> warnings = new ArrayList<>();

    private void sendWarnings() {
        for (Budgets.Breach w : warnings) {
            events.budgetWarning(w);
        }
        warnings.clear();
    }

    /**
     * The budgets (tokens and cost per turn, per agent, per team, per team per UTC day: {@link Budgets}); a subagent's
     * loop counts its own usage as the turn's and nothing towards the agent or team checks (its usage joins the
     * parent's turn after the call). The team's usage (and the day's) is read from the host only when such a budget is
     * set.
     */
    private Optional<Budgets.Breach> budgetExceeded() {
        Budgets b = budgets();
        boolean own = ctx.policy().countsAgentUsage();
        Usage team = own && b.limitsTeam() ? session.agent().teamUsage().get() : null;
        Usage today = own && b.limitsTeamDay() ? session.agent().teamUsageToday().get() : null;
        return b.breach(ctx.agentId(), ctx.team(), turn.usage, own ? session.usage() : Usage.ZERO, team, today);
    }

    /** Inbox items, the todo reminder (persistent loops) and, at {@code max-1}, the last-step notice. */
    private void inject() {
        if (ctx.policy().injectsInbox()) {
            for (InboxItem item : session.drainInbox()) {
                conv.add(Message.user(item.text()));
                session.injected(item.id());
                if (item.promptId() != null) {
                    turn.promptIds.add(item.promptId()); // saved with the step that injects it
                }
            }
        }
        if (ctx.policy().remindsTodos() && ctx.offered().contains(ToolNames.TODO_WRITE)
                && session.roundsSinceTodo() >= engine.settings.todoReminderRounds() && session.todos().hasUnfinished()) {
            conv.add(Message.user("<reminder>Update your todo list with todo_write: mark finished items "
                    + "completed and keep one item in_progress.</reminder>"));
            session.resetRoundsSinceTodo();
        }
        if (turn.modelCalls == ctx.maxCalls() - 1) {
            conv.add(Message.user("<notice>This is your last step in this turn: finish now, or report what "
                    + "is done and what remains. Tool calls you make now will run, but you will not see "
                    + "their results.</notice>"));
        }
    }

    /** Compaction, repair, one model call with recovery; the reply appended and saved. */
    private ToolOrchestrator.Stop callModel() {
        ctx.mcp().refresh(); // the MCP servers' tools of this step (a changed list is offered from here on)
        ModelClient.Reply reply = null;
        while (reply == null) {
            try {
                List<Message> sent = context.prepare();
                String system = context.systemPrompt();
                boolean saves = ctx.policy().saves();
                if (saves) {
                    session.saveBehind(); // the step before this request is saved while the request is under way
                }
                try {
                    reply = model.call(m -> new ModelClient.Request(ctx.modelUser(), system, sent, ctx.specs(), m,
                            model.maxOutputTokens()));
                } finally {
                    if (saves) {
                        session.awaitSave(); // before the reply is looked at: a failed save ends the turn as it did
                    }
                }
                context.observed(reply.inputTokens(), sent.size());
            } catch (ModelCaller.ContextTooLong e) {
                if (turn.recovery.reactiveCompacted()) {
                    return fail("The conversation is still too long for the model's context window after "
                            + "compacting it once in this turn (" + e.failure.describe() + "). Start a new "
                            + "conversation or ask for smaller steps.");
                }
                turn.recovery = turn.recovery.withReactiveCompacted();
                events.retry(new ModelRetry.ReactiveCompact(e.failure.status(), e.failure.code(), ctx.turnId(),
                        events.subagentFlag()));
                try {
                    if (!context.summarize("reactive", null)) {
                        return fail("The conversation is too long for the model's context window ("
                                + e.failure.describe() + ") and compacting it failed.");
                    }
                } catch (ModelCaller.TurnEnd t) {
                    return stopOf(t);
                }
            } catch (ModelCaller.TurnEnd e) {
                return stopOf(e);
            }
        }
        turn.modelCalls++;
        Usage u = engine.settings.usageOf(reply);
        if (ctx.policy().countsAgentUsage()) { // own loops only, as the budgets' other warnings
            budgets().unpriced(reply.model() != null ? reply.model() : model.model(), turn.usage, u)
                    .ifPresent(warnings::add);
        }
        count(u);
        if ("length".equals(reply.finishReason())) {
            try {
                model.truncated(reply, u);
            } catch (ModelCaller.TurnEnd e) {
                return stopOf(e);
            }
            return null;
        }
        if (!reply.toolCalls().isEmpty() || reply.text() != null) {
            reply = model.joinContinuations(reply);
        }
        Message assistant = Message.assistant(reply.text(), model.withIds(reply.toolCalls()));
        conv.add(assistant);
        events.assistant(assistant, reply, u, model.model()); // stored with the save of the reply (TurnEvents)
        step();
        sendWarnings();
        if (ctx.policy().remindsTodos() && assistant.hasToolCalls()) {
            session.countToolRound();
        }
        return null;
    }

    private ToolOrchestrator.Stop stopOf(ModelCaller.TurnEnd e) {
        return e.reason == StopReason.ERROR ? fail(e.getMessage()) : new ToolOrchestrator.Stop(e.reason, e.getMessage());
    }

    private ToolOrchestrator.Stop fail(String text) {
        events.error(text);
        return new ToolOrchestrator.Stop(StopReason.ERROR, text);
    }

    /** A model call's usage: the turn's, and in a persistent loop the agent's. */
    private void count(Usage u) {
        warnCrossings(u, true);
        turn.usage = turn.usage.plus(u);
        if (ctx.policy().countsAgentUsage()) {
            session.addUsage(u);
        }
    }

    /** Subagents run inside a call: their usage joins this turn's once the call is recorded. */
    private void absorbSubagentUsage() {
        Usage sub = session.takeSubagentUsage();
        if (sub.calls() > 0) {
            warnCrossings(sub, false);
            turn.usage = turn.usage.plus(sub);
        }
    }

    /** Applies an effect of a successful call, then tells the host. */
    private void apply(ToolEffect effect) {
        switch (effect) {
            case ToolEffect.TodosChanged t -> {
                if (ctx.policy().remindsTodos()) {
                    session.resetRoundsSinceTodo();
                    events.todos(session.todos().items());
                }
            }
            case ToolEffect.CompactRequested c -> context.requestCompaction(c.focus());
            case ToolEffect.SkillLoaded s -> session.skillLoaded(s.name());
            case ToolEffect.TaskClaimed t -> {
                // the host binds the working directory (below); the engine reads it again at the next call
            }
        }
        try {
            session.agent().effects().accept(effect);
        } catch (RuntimeException e) {
            LOG.errorf(e, "the host failed to apply %s team=%s agent=%s turn=%s", effect, ctx.team(), ctx.agent(),
                    ctx.turnId());
            events.error("the host could not apply " + effect + ": " + e.getMessage());
        }
    }

    private void step() {
        if (ctx.policy().saves()) {
            session.save();
        }
    }

    private TurnResult end(ToolOrchestrator.Stop stop) {
        sendWarnings();
        TurnResult r = new TurnResult(ctx.turnId(), stop.reason(), stop.text(), turn.modelCalls, turn.usage);
        if (stop.reason().suspended()) {
            step(); // parked or detached: the turn stays in progress, saved as it is
            return r;
        }
        if (ctx.policy().announcesEnd()) {
            String req = turn.request;
            session.endTurn();
            session.save();
            events.turnCompleted(stop.reason(), stop.text(), turn.modelCalls, turn.usage, session.usage());
            if (stop.reason() == StopReason.COMPLETED) {
                List<Message> m = conv.messages;
                int from = Layers.lastIndexOfRequest(m, req);
                try {
                    engine.memory.turnCompleted(List.copyOf(m.subList(from < 0 ? Math.max(0, m.size() - 20) : from,
                            m.size())), ctx);
                } catch (RuntimeException e) {
                    LOG.warnf(e, "memory extraction could not start. team=%s agent=%s", ctx.team(), ctx.agent());
                }
            }
        }
        return r;
    }
}
