package dev.cohort.core.engine;

import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.payload.AssistantMessage;
import dev.cohort.core.protocol.payload.BudgetExceeded;
import dev.cohort.core.protocol.payload.BudgetWarning;
import dev.cohort.core.protocol.payload.Compacted;
import dev.cohort.core.protocol.payload.EngineError;
import dev.cohort.core.protocol.payload.EventPayload;
import dev.cohort.core.protocol.payload.ModelRetry;
import dev.cohort.core.protocol.payload.TodoUpdated;
import dev.cohort.core.protocol.payload.ToolCallFinished;
import dev.cohort.core.protocol.payload.ToolCallStarted;
import dev.cohort.core.protocol.payload.TurnCompleted;
import dev.cohort.core.protocol.payload.TurnStarted;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.todo.TodoItem;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * The events of one loop, one method per event type, each with its payload record ({@code dev.cohort.core.protocol
 * .payload}). A failing sink never fails the turn: the event is dropped and logged.
 *
 * <p>In a loop that saves, the events that describe a step ({@code assistant_message} for the reply, and
 * {@code tool_call_finished} for a result) go with that step's save ({@link Pending}): a store that keeps the
 * event log stores them in the save's transaction, and other stores get them emitted right after the save. Any other
 * event first sends the pending ones on, so watchers see every event in the order it happened.
 */
final class TurnEvents {

    /** The events waiting for the next save of the agent (the session's). */
    interface Pending {
        void add(Event e);

        /** Emits the events waiting for a save now, in order (an event that must not wait comes next). */
        void flush();

        Pending NONE = new Pending() {
            @Override
            public void add(Event e) {
                throw new IllegalStateException("no save to wait for");
            }

            @Override
            public void flush() {
            }
        };
    }
    private static final Logger LOG = Logger.getLogger(TurnEvents.class);

    private final EventSink sink;
    private final String team;
    private final String agent;
    private final String turnId;
    /** {@code TRUE} in a subagent's loop, else {@code null} (absent from the data). */
    private final Boolean subagent;
    private final int previewChars;
    private final Pending pending;
    /** The step events wait for the save (a loop that saves); else they are emitted at once. */
    private final boolean withSave;
    /** The prompts the turn answers (the turn's own list, read as each event is made). */
    private final List<String> promptIds;

    TurnEvents(EventSink sink, String team, String agent, String turnId, boolean subagent, int previewChars,
            Pending pending, boolean withSave, List<String> promptIds) {
        this.promptIds = promptIds == null ? List.of() : promptIds;
        this.sink = sink;
        this.pending = pending == null ? Pending.NONE : pending;
        this.withSave = withSave && pending != null;
        this.team = team;
        this.agent = agent;
        this.turnId = turnId;
        this.subagent = subagent ? Boolean.TRUE : null;
        this.previewChars = previewChars;
    }

    void turnStarted(String source) {
        emit(new TurnStarted(turnId, source));
    }

    /**
     * The reply's event: with the save that appends the reply (call it before that save). {@code requested} is the
     * model the call asked for, named when the reply does not say which model answered.
     */
    void assistant(Message m, ModelClient.Reply reply, Usage u, String requested) {
        String model = reply.model() != null && !reply.model().isBlank() ? reply.model() : requested;
        emitWithSave(new AssistantMessage(turnId, reply.finishReason(), u.inputTokens(), u.outputTokens(), m.content(),
                m.toolCalls().stream().map(ModelToolCall::name).toList(), subagent, model, u.cachedTokens(),
                u.costUsd(), u.cacheWriteTokens(), u.priceKnown()));
    }

    void toolStarted(ModelToolCall c) {
        emit(new ToolCallStarted(turnId, c.id(), c.name(), preview(c.arguments() == null ? "" : c.arguments()),
                subagent));
    }

    /** A call's result: with the save that appends it. */
    void toolFinished(ModelToolCall c, ToolResult r, long durationMs) {
        emitWithSave(new ToolCallFinished(turnId, c.id(), c.name(), durationMs, r.error(), preview(r.content()), r.rule(),
                subagent));
    }

    void turnCompleted(StopReason reason, String text, int modelCalls, Usage turn, Usage agentUsage) {
        emit(new TurnCompleted(turnId, reason.wire(), modelCalls, text, view(turn), view(agentUsage), promptIds));
    }

    void todos(List<TodoItem> items) {
        emit(new TodoUpdated(turnId, items.stream().map(t -> new TodoUpdated.Item(t.content(), t.status())).toList()));
    }

    /** An L0–L2 layer changed the conversation. */
    void compacted(String layer, int changed, String transcript, int msgsBefore, int msgsAfter, long before, long after) {
        emit(new Compacted(turnId, layer, changed, null, transcript, msgsBefore, msgsAfter, before, after, null,
                subagent));
    }

    /** L3: the conversation was summarised. */
    void summarized(String reason, String transcript, int msgsBefore, int msgsAfter, long before, long after,
            String focus) {
        emit(new Compacted(turnId, "L3", null, reason, transcript, msgsBefore, msgsAfter, before, after, focus,
                subagent));
    }

    String turnId() {
        return turnId;
    }

    Boolean subagentFlag() {
        return subagent;
    }

    void retry(ModelRetry r) {
        emit(r);
    }

    void budgetWarning(Budgets.Breach b) {
        emit(new BudgetWarning(turnId, b.budget(), b.scope(), b.used(), b.limit(),
                Math.round(b.used() * 100 / b.limit()), b.text()));
    }

    void budgetExceeded(Budgets.Breach b) {
        emit(new BudgetExceeded(turnId, b.budget(), b.scope(), b.used(), b.limit(), b.text()));
    }

    void error(String message) {
        emit(EngineError.of(turnId, message));
    }

    void compactionFailed(String message, String transcript) {
        emit(new EngineError(turnId, message, null, null, null, null, null, transcript));
    }

    void hookFailed(String event, String hook, String message, boolean blocked) {
        emit(new EngineError(turnId, hook + " failed: " + message + (blocked
                ? "; the tool call was refused (PreToolUse hooks fail closed)" : "; ignored"), hook, event, blocked,
                null, null, null));
    }

    void settingsProblem(String message, String file) {
        emit(new EngineError(turnId, message, null, null, null, true, file, null));
    }

    private String preview(String s) {
        return s.length() > previewChars ? s.substring(0, previewChars) + "…" : s;
    }

    private static TurnCompleted.UsageView view(Usage u) {
        return new TurnCompleted.UsageView(u.inputTokens(), u.outputTokens(), u.costUsd(), u.cachedTokens(),
                u.cacheWriteTokens(), u.unpricedCalls());
    }

    private void emitWithSave(EventPayload p) {
        if (!withSave) {
            emit(p);
            return;
        }
        pending.add(event(p));
    }

    private void emit(EventPayload p) {
        pending.flush();
        emit(sink, event(p));
    }

    /** The event of {@code p}, carrying the prompt the turn started with (if any). */
    private Event event(EventPayload p) {
        return Event.of(team, agent, p).withPromptId(promptIds.isEmpty() ? null : promptIds.get(0));
    }

    /** Emits one event; a failing sink drops it (logged), never failing the turn. */
    static void emit(EventSink sink, Event e) {
        try {
            sink.emit(e);
        } catch (RuntimeException ex) {
            LOG.warnf(ex, "event sink failed; event %s dropped. team=%s agent=%s", e.type().wire(), e.team(), e.agent());
        }
    }
}
