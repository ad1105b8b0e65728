package dev.cohort.core.engine;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.engine.compact.Layers;
import dev.cohort.core.engine.compact.Summary;
import dev.cohort.core.engine.compact.Tokens;
import dev.cohort.core.engine.compact.Transcripts;
import dev.cohort.core.engine.hooks.CommandHook;
import dev.cohort.core.engine.hooks.Hooks;
import dev.cohort.core.engine.hooks.PreToolUseHook;
import dev.cohort.core.engine.hooks.WorkspaceHookSettings;
import dev.cohort.core.engine.permission.PermissionDecision;
import dev.cohort.core.engine.permission.PermissionGate;
import dev.cohort.core.engine.permission.PermissionPolicy;
import dev.cohort.core.engine.prompt.PromptCache;
import dev.cohort.core.engine.prompt.PromptInputs;
import dev.cohort.core.engine.recovery.ModelFailure;
import dev.cohort.core.engine.recovery.RetryPolicy;
import dev.cohort.core.tools.compact.CompactTool;
import java.time.Duration;
import java.util.UUID;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.shell.CommandRules;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolArguments;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolFailure;
import dev.cohort.core.tools.ToolInfrastructureException;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.Toolsets;
import dev.cohort.core.tools.skills.LoadSkillTool;
import dev.cohort.core.tools.skills.SkillCatalog;
import dev.cohort.core.tools.skills.SkillLibrary;
import dev.cohort.core.tools.subagent.SubagentRunner;
import dev.cohort.core.tools.todo.TodoList;
import dev.cohort.core.tools.todo.TodoWriteTool;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * One agent's loop (s01–s07). Not thread-safe: a host runs one turn of an agent at a time; {@link #cancel()} may be
 * called from any thread.
 *
 * <p><b>A turn</b> ({@link #run}): the turn's hooks are assembled (the engine's built-in hooks, the team's command
 * hooks, the workspace settings file's) → skills are re-read → UserPromptSubmit hooks rewrite the input → it is
 * appended →
 * then, step by step:
 * <ol>
 * <li>run the tool calls of the last assistant message that have no result yet (this is also how a restored turn
 * continues: a call whose result was saved is never run again), each in order: allowlist → argument validation →
 * permission gate (→ approval) → PreToolUse hooks → the tool → PostToolUse hooks → one result, saved;</li>
 * <li>stop if cancelled, stuck, over the model-call cap or over a token budget;</li>
 * <li>append inbox messages, the todo reminder (after N rounds without {@code todo_write}, only while unfinished
 * todos exist) and, at {@code max-1}, the last-step notice;</li>
 * <li>(compaction hook point) → repair → assemble the system prompt (cached prefix + per-call memories) → one
 * model call → the reply is appended and saved;</li>
 * <li>no tool calls: Stop hooks may force a continuation (bounded), else the turn completes.</li>
 * </ol>
 */
public final class AgentSession {
    private static final Logger LOG = Logger.getLogger(AgentSession.class);

    private final AgentEngine engine;
    private final AgentContext agent;
    /** The engine's hooks plus this turn's command hooks (team settings, workspace settings file), set per turn. */
    private Hooks hooks;
    private final WorkspaceHookSettings workspaceHooks;
    private final PermissionPolicy policy;
    private final SkillLibrary skills;
    private final PromptCache promptCache = new PromptCache();
    private final PromptCache subPromptCache = new PromptCache();

    private final List<Message> messages;
    private final TodoList todos;
    private int roundsSinceTodo;
    private final LinkedHashSet<String> loadedSkills;
    private Usage usage;
    private AgentState.TurnProgress turn;
    private AgentState.ContextStats context;
    private volatile boolean cancelRequested;
    /** Usage of subagents run by the current call, added to the turn's usage by the main loop. */
    private Usage subagentUsage = Usage.ZERO;

    AgentSession(AgentEngine engine, AgentContext agent, AgentState state) {
        this.engine = engine;
        this.agent = agent;
        this.hooks = engine.hooks.withReporter(this::hookFailed);
        this.workspaceHooks = engine.hookSettingsFile == null ? null : new WorkspaceHookSettings(engine.hookSettingsFile);
        this.policy = agent.rules().isEmpty() ? engine.policy : engine.policy.withRules(agent.rules());
        this.skills = new SkillLibrary(engine.bundledSkills);
        this.messages = new ArrayList<>(state.messages());
        this.todos = new TodoList(state.todos());
        this.roundsSinceTodo = state.roundsSinceTodo();
        this.loadedSkills = new LinkedHashSet<>(state.loadedSkills());
        this.usage = state.usage();
        this.turn = state.turn();
        this.context = state.context();
    }

    /** The current state (the value the host saves). */
    public AgentState snapshot() {
        return new AgentState(AgentState.VERSION, messages, todos.items(), roundsSinceTodo, List.copyOf(loadedSkills),
                usage, turn, context);
    }

    /** {@code true} while a turn was started and not ended (after a restore: call {@link #resume()}). */
    public boolean turnInProgress() {
        return turn != null;
    }

    /** Asks the running turn to stop at the next step; calls already started finish and are recorded. */
    public void cancel() {
        cancelRequested = true;
    }

    /** Runs a turn for a prompt from a person or the host. */
    public TurnResult run(String text, String source, boolean unattended) {
        if (turn != null) {
            throw new IllegalStateException("agent " + agentId() + " has a turn in progress; resume() it first");
        }
        cancelRequested = false;
        turn = new AgentState.TurnProgress(Ids.newId(), source == null ? "http" : source, unattended, 0, 0, Usage.ZERO,
                null);
        // announced first: watchers see the turn at once, before skills are re-read through the workspace
        ObjectNode data = Event.newData().put("turnId", turn.turnId()).put("source", turn.source());
        emit(EventType.TURN_STARTED, data);
        Loop loop = mainLoop();
        String input = hooks.userPromptSubmit(text, loop.ctx);
        turn = new AgentState.TurnProgress(turn.turnId(), turn.source(), turn.unattended(), 0, 0, Usage.ZERO, null,
                input, null);
        loop.request = input;
        messages.add(Message.user(input));
        save();
        return loop.run();
    }

    /** Runs a turn for a prompt from a person (attended, source {@code http}). */
    public TurnResult run(String text) {
        return run(text, "http", false);
    }

    /** Continues the turn in progress of a restored state. */
    public TurnResult resume() {
        if (turn == null) {
            throw new IllegalStateException("agent " + agentId() + " has no turn in progress");
        }
        cancelRequested = false;
        return mainLoop().run();
    }

    private String agentId() {
        return Ids.agentId(agent.team(), agent.agent());
    }

    private void save() {
        if (agent.store() != StateStore.NONE) {
            agent.store().save(snapshot());
        }
    }

    private void emit(EventType type, ObjectNode data) {
        try {
            engine.events.emit(Event.of(agent.team(), agent.agent(), type, data));
        } catch (RuntimeException e) {
            LOG.warnf(e, "event sink failed; event %s dropped. team=%s agent=%s", type.wire(), agent.team(), agent.agent());
        }
    }

    /** A hook failed: an {@code error} event of the turn (PreToolUse: the call was refused). */
    private void hookFailed(String event, String hook, String message, boolean blocked) {
        ObjectNode d = Event.newData();
        if (turn != null) {
            d.put("turnId", turn.turnId());
        }
        d.put("message", hook + " failed: " + message + (blocked ? "; the tool call was refused (PreToolUse hooks fail closed)"
                : "; ignored")).put("hook", hook).put("hookEvent", event).put("blocked", blocked);
        emit(EventType.ERROR, d);
    }

    /**
     * The hooks of this turn: the engine's, then the team's command hooks, then those of the workspace settings
     * file. A source that cannot be read is an {@code error} event and the turn runs without its hooks.
     */
    private Hooks turnHooks() {
        List<CommandHook> commands = new ArrayList<>();
        try {
            commands.addAll(agent.commandHooks().get());
        } catch (RuntimeException e) {
            LOG.warnf(e, "cannot read the team's command hooks. team=%s agent=%s", agent.team(), agent.agent());
            settingsProblem("cannot read the team's hooks: " + e.getMessage() + "; this turn runs without them", null);
        }
        if (workspaceHooks != null) {
            WorkspaceHookSettings.Result r = workspaceHooks.read(agent.workspace(),
                    new WorkspaceToolExecutor.Target(agent.team(), agent.agent(), agent.cwd()));
            if (r.problem() != null) {
                LOG.warnf("%s. team=%s agent=%s", r.problem(), agent.team(), agent.agent());
                settingsProblem(r.problem(), workspaceHooks.path());
            }
            commands.addAll(r.hooks());
            if (r.failClosed()) {
                String why = r.problem();
                PreToolUseHook closed = (call, c) -> engine.tools.find(call.name()).map(Tool::isMutating).orElse(true)
                        ? Optional.of("blocked by rule '" + WorkspaceHookSettings.FAIL_CLOSED_RULE + "': " + why)
                        : Optional.empty();
                return engine.hooks.with(List.of(closed)).with(commands.stream().map(CommandHook::toHook).toList())
                        .withReporter(this::hookFailed);
            }
        }
        return engine.hooks.with(commands.stream().map(CommandHook::toHook).toList()).withReporter(this::hookFailed);
    }

    private void settingsProblem(String message, String file) {
        ObjectNode d = Event.newData().put("turnId", turn.turnId()).put("message", message).put("hookSettings", true);
        if (file != null) {
            d.put("file", file);
        }
        emit(EventType.ERROR, d);
    }

    private Loop mainLoop() {
        Set<String> allowed = new LinkedHashSet<>(agent.allowlist());
        allowed.retainAll(engine.tools.names());
        Ctx ctx = new Ctx(agent.role(), turn.turnId(), turn.unattended());
        hooks = turnHooks();
        if (allowed.contains(LoadSkillTool.NAME)) {
            try {
                skills.refresh(agent.workspace(), new WorkspaceToolExecutor.Target(agent.team(), agent.agent(), agent.cwd()));
            } catch (RuntimeException e) {
                LOG.warnf(e, "cannot read workspace skills; bundled ones only. team=%s agent=%s", agent.team(), agent.agent());
            }
        }
        return new Loop(ctx, messages, agent.allowlist(), engine.settings.maxModelCallsPerTurn(), true, promptCache,
                agentId());
    }

    /** The tool context of a loop. */
    private final class Ctx implements ToolContext {
        private final AgentRole role;
        private final String turnId;
        private final boolean unattended;

        Ctx(AgentRole role, String turnId, boolean unattended) {
            this.role = role;
            this.turnId = turnId;
            this.unattended = unattended;
        }

        @Override
        public String team() {
            return agent.team();
        }

        @Override
        public String agent() {
            return agent.agent();
        }

        @Override
        public AgentRole role() {
            return role;
        }

        @Override
        public String cwd() {
            return agent.cwd();
        }

        @Override
        public String turnId() {
            return turnId;
        }

        @Override
        public boolean unattended() {
            return unattended;
        }

        @Override
        public WorkspaceToolExecutor workspace() {
            return agent.workspace();
        }

        @Override
        public TodoList todos() {
            return todos;
        }

        @Override
        public SkillCatalog skills() {
            return skills;
        }

        @Override
        public SubagentRunner subagents() {
            return role == AgentRole.SUBAGENT ? (d, p) -> new SubagentRunner.SubagentResult(
                    "a subagent cannot spawn subagents", true, 0) : AgentSession.this::runSubagent;
        }
    }

    private SubagentRunner.SubagentResult runSubagent(String description, ToolContext parent) {
        Ctx ctx = new Ctx(AgentRole.SUBAGENT, parent.turnId(), parent.unattended());
        List<Message> sub = new ArrayList<>();
        sub.add(Message.user(description));
        Set<String> allowed = new LinkedHashSet<>(Toolsets.SUBAGENT);
        allowed.retainAll(agent.allowlist());
        Loop loop = new Loop(ctx, sub, allowed, engine.settings.subagentMaxModelCalls(), false, subPromptCache,
                agentId() + "/sub");
        TurnResult r = loop.run();
        SubagentRunner.SubagentResult result = switch (r.reason()) {
            case COMPLETED -> new SubagentRunner.SubagentResult(r.text() == null || r.text().isBlank()
                    ? "(the subagent finished without a summary)" : r.text(), false, r.modelCalls());
            case MAX_MODEL_CALLS -> new SubagentRunner.SubagentResult("The subagent reached its limit of "
                    + engine.settings.subagentMaxModelCalls() + " model calls without a final answer."
                    + lastAssistantText(sub).map(t -> " Its last note: " + t).orElse(""), true, r.modelCalls());
            default -> new SubagentRunner.SubagentResult("The subagent stopped (" + r.reason().wire() + "): " + r.text(),
                    true, r.modelCalls());
        };
        hooks.subagentStop(description, result, ctx);
        subagentUsage = subagentUsage.plus(r.usage());
        usage = usage.plus(r.usage());
        return result;
    }

    private static Optional<String> lastAssistantText(List<Message> msgs) {
        for (int i = msgs.size() - 1; i >= 0; i--) {
            Message m = msgs.get(i);
            if (m.role() == Message.Role.ASSISTANT && m.content() != null && !m.content().isBlank()) {
                return Optional.of(m.content());
            }
        }
        return Optional.empty();
    }

    /**
     * One loop over a conversation: the main turn (persistent, with todo reminders, Stop hooks and the inbox) or a
     * subagent's (ephemeral, capped, none of those).
     */
    private final class Loop {
        private final Ctx ctx;
        private final List<Message> conv;
        private final Set<String> allowlist;
        private final int maxCalls;
        private final boolean main;
        private final PromptCache cache;
        private final String modelUser;
        private final List<ToolSpecification> specs;
        private final Set<String> offered;
        // subagent counters (the main loop keeps them in `turn`, which is saved)
        private int calls;
        private Usage loopUsage = Usage.ZERO;
        private StuckGuard.State stuck = StuckGuard.State.EMPTY;
        private AgentState.Recovery rec = AgentState.Recovery.FRESH;
        private AgentState.ContextStats stats;
        private String request;
        /** The focus of a {@code compact} call of the last batch ("" without one), null when none was made. */
        private String compactFocus;
        private long fixedTokens = -1;

        Loop(Ctx ctx, List<Message> conv, Set<String> allowlist, int maxCalls, boolean main, PromptCache cache,
                String modelUser) {
            this.ctx = ctx;
            this.conv = conv;
            this.allowlist = allowlist;
            this.maxCalls = maxCalls;
            this.main = main;
            this.cache = cache;
            this.modelUser = modelUser;
            Set<String> o = new LinkedHashSet<>(allowlist);
            o.retainAll(engine.tools.names());
            this.offered = o;
            this.specs = engine.tools.specs(o);
            if (main) {
                calls = turn.modelCalls();
                loopUsage = turn.usage();
                stuck = turn.stuck();
                rec = turn.recovery();
                stats = context;
                request = turn.request();
            } else {
                request = conv.isEmpty() ? null : conv.get(0).content();
            }
        }

        private void sync() {
            if (main) {
                turn = new AgentState.TurnProgress(turn.turnId(), turn.source(), turn.unattended(), calls,
                        turn.stopContinuations(), loopUsage, stuck, turn.request(), rec);
                context = stats;
            }
        }

        private void step() {
            sync();
            if (main) {
                save();
            }
        }

        TurnResult run() {
            String turnId = ctx.turnId();
            while (true) {
                List<ModelToolCall> pending = Conversation.pendingCalls(conv);
                if (!pending.isEmpty()) {
                    TurnResult ended = executeAll(pending);
                    if (ended != null) {
                        return ended;
                    }
                }
                Message last = conv.isEmpty() ? null : conv.get(conv.size() - 1);
                if (last != null && last.role() == Message.Role.ASSISTANT && !last.hasToolCalls()) {
                    // a final answer (also one saved just before a crash): Stop hooks may force a continuation
                    if (main && turn.stopContinuations() < engine.settings.maxStopContinuations()) {
                        Optional<String> force = hooks.stop(List.copyOf(conv), ctx);
                        if (force.isPresent()) {
                            conv.add(Message.user(force.get()));
                            turn = new AgentState.TurnProgress(turn.turnId(), turn.source(), turn.unattended(), calls,
                                    turn.stopContinuations() + 1, loopUsage, stuck, turn.request(), rec);
                            save();
                            continue;
                        }
                    }
                    return end(StopReason.COMPLETED, last.content());
                }
                if (cancelRequested) {
                    return end(StopReason.CANCELLED, "The turn was cancelled.");
                }
                if (calls >= maxCalls) {
                    return end(StopReason.MAX_MODEL_CALLS, "Stopped: this turn reached its limit of " + maxCalls
                            + " model calls.");
                }
                Optional<String> over = budgetExceeded();
                if (over.isPresent()) {
                    return end(StopReason.BUDGET_EXCEEDED, over.get());
                }
                if (main) {
                    for (String text : agent.inbox().drain()) {
                        conv.add(Message.user(text));
                    }
                    if (offered.contains(TodoWriteTool.NAME) && roundsSinceTodo >= engine.settings.todoReminderRounds()
                            && todos.hasUnfinished()) {
                        conv.add(Message.user("<reminder>Update your todo list with todo_write: mark finished items "
                                + "completed and keep one item in_progress.</reminder>"));
                        roundsSinceTodo = 0;
                    }
                }
                if (calls == maxCalls - 1) {
                    conv.add(Message.user("<notice>This is your last step in this turn: finish now, or report what "
                            + "is done and what remains. Tool calls you make now will run, but you will not see "
                            + "their results.</notice>"));
                }
                ModelClient.Reply reply = null;
                while (reply == null) {
                    compactBeforeCall();
                    List<Message> repaired = Conversation.repair(conv);
                    if (repaired != conv) {
                        conv.clear();
                        conv.addAll(repaired);
                        stats = null;
                    }
                    String system = systemPrompt();
                    try {
                        int sent = conv.size();
                        reply = chatWithRetry(model -> new ModelClient.Request(modelUser, system, List.copyOf(conv),
                                specs, model, currentMaxOutput()));
                        stats = reply.inputTokens() > 0 ? new AgentState.ContextStats(reply.inputTokens(), sent) : null;
                    } catch (ContextTooLong e) {
                        if (rec.reactiveCompacted()) {
                            return fail("The conversation is still too long for the model's context window after "
                                    + "compacting it once in this turn (" + e.failure.describe() + "). Start a new "
                                    + "conversation or ask for smaller steps.");
                        }
                        rec = new AgentState.Recovery(rec.model(), rec.consecutiveOverloads(), rec.maxOutputTokens(),
                                rec.continuations(), rec.truncatedToolRounds(), true);
                        sync();
                        emitRetry(Event.newData().put("action", "reactive_compact").put("status", e.failure.status())
                                .put("code", e.failure.code()));
                        if (!summarize("reactive", null)) {
                            return fail("The conversation is too long for the model's context window ("
                                    + e.failure.describe() + ") and compacting it failed.");
                        }
                    } catch (TurnEnd e) {
                        if (e.reason == StopReason.ERROR) {
                            return fail(e.getMessage());
                        }
                        return end(e.reason, e.getMessage());
                    }
                }
                calls++;
                double cost = engine.settings.cost(reply.model(), reply.inputTokens(), reply.outputTokens());
                Usage u = new Usage(reply.inputTokens(), reply.outputTokens(), 1, cost);
                loopUsage = loopUsage.plus(u);
                if (main) {
                    usage = usage.plus(u);
                }
                if ("length".equals(reply.finishReason())) {
                    TurnResult ended = truncated(reply, u);
                    if (ended != null) {
                        return ended;
                    }
                    continue;
                }
                if (!reply.toolCalls().isEmpty() || reply.text() != null) {
                    reply = joinContinuations(reply);
                }
                Message assistant = Message.assistant(reply.text(), withIds(reply.toolCalls()));
                conv.add(assistant);
                step();
                emitAssistant(assistant, reply, u);
                if (main && assistant.hasToolCalls()) {
                    roundsSinceTodo++;
                }
            }
        }


        // ---- error recovery (s11) ----------------------------------------------------------------------------

        private String currentModel() {
            return rec.model() != null ? rec.model() : engine.settings.model();
        }

        private Integer currentMaxOutput() {
            return rec.maxOutputTokens() != null ? rec.maxOutputTokens() : engine.settings.maxOutputTokens();
        }

        /**
         * One model call with recovery: transient failures (429, 529/503, other 5xx, connection errors, timeouts) are
         * retried with backoff (the server's {@code Retry-After} honoured, no sleep after the last attempt); after N
         * consecutive overloads the fallback model is used for the following attempts and the rest of the turn; a
         * context-length error is thrown as {@link ContextTooLong}; anything else ends the turn with a clear message.
         */
        private ModelClient.Reply chatWithRetry(java.util.function.Function<String, ModelClient.Request> request) {
            RecoverySettings rs = engine.settings.recovery();
            for (int attempt = 0; ; attempt++) {
                String model = currentModel();
                try {
                    ModelClient.Reply r = engine.model.chat(request.apply(model));
                    if (rec.consecutiveOverloads() != 0) {
                        rec = new AgentState.Recovery(rec.model(), 0, rec.maxOutputTokens(), rec.continuations(),
                                rec.truncatedToolRounds(), rec.reactiveCompacted());
                    }
                    return r;
                } catch (RuntimeException e) {
                    ModelFailure f = ModelFailure.classify(e);
                    LOG.warnf("model call failed (%s, attempt %d/%d): %s team=%s agent=%s turn=%s", f.kind(),
                            attempt + 1, rs.maxAttempts(), f.describe(), agent.team(), agent.agent(), ctx.turnId());
                    if (f.kind() == ModelFailure.Kind.CONTEXT_LENGTH) {
                        throw new ContextTooLong(f);
                    }
                    if (!f.kind().retryable()) {
                        throw new TurnEnd(StopReason.ERROR, fatalMessage(f));
                    }
                    int overloads = f.kind() == ModelFailure.Kind.OVERLOADED ? rec.consecutiveOverloads() + 1 : 0;
                    String next = rec.model();
                    if (overloads >= rs.overloadsBeforeFallback() && rs.fallbackModel() != null
                            && !rs.fallbackModel().equals(model)) {
                        next = rs.fallbackModel();
                        overloads = 0;
                        emitRetry(Event.newData().put("action", "fallback").put("from", model == null ? "primary" : model)
                                .put("to", next).put("status", f.status()).put("code", f.code()));
                    }
                    rec = new AgentState.Recovery(next, overloads, rec.maxOutputTokens(), rec.continuations(),
                            rec.truncatedToolRounds(), rec.reactiveCompacted());
                    sync();
                    if (attempt + 1 >= rs.maxAttempts()) {
                        throw new TurnEnd(StopReason.ERROR, "The model is unavailable: " + rs.maxAttempts()
                                + " attempts failed; the last one with " + f.describe());
                    }
                    Duration delay = RetryPolicy.delay(attempt, f.retryAfter(), rs.baseDelay(), rs.maxDelay(),
                            rs.maxRetryAfter(), rs.jitterRatio(), engine.random.getAsDouble());
                    emitRetry(Event.newData().put("action", "retry").put("attempt", attempt + 1)
                            .put("maxAttempts", rs.maxAttempts()).put("kind", f.kind().name().toLowerCase())
                            .put("status", f.status()).put("code", f.code()).put("delayMs", delay.toMillis())
                            .put("retryAfter", f.retryAfter() != null).put("model", currentModel()));
                    try {
                        engine.sleeper.sleep(delay);
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        throw new TurnEnd(StopReason.CANCELLED, "The turn was cancelled while waiting to retry.");
                    }
                    if (cancelRequested) {
                        throw new TurnEnd(StopReason.CANCELLED, "The turn was cancelled.");
                    }
                }
            }
        }

        private String fatalMessage(ModelFailure f) {
            return switch (f.kind()) {
                case AUTH -> "The model provider refused the credentials (" + f.describe() + "). Check the API key "
                        + "(cohort.llm.api-key / OPENAI_API_KEY); not retried.";
                case QUOTA -> "The model provider's quota is exhausted (" + f.describe() + "). Add credit or use "
                        + "another key; not retried.";
                default -> "The model call failed (" + f.describe() + "); not retried.";
            };
        }

        private void emitRetry(ObjectNode d) {
            d.put("turnId", ctx.turnId());
            if (ctx.role() == AgentRole.SUBAGENT) {
                d.put("subagent", true);
            }
            emit(EventType.MODEL_RETRY, d);
        }

        private TurnResult fail(String text) {
            emit(EventType.ERROR, Event.newData().put("turnId", ctx.turnId()).put("message", text));
            return end(StopReason.ERROR, text);
        }

        /**
         * A {@code length} finish (s11 gaps 18–20): the output limit is raised once (capped by the model's maximum);
         * a cut-off text is kept and continued (at most N prompts; the fragments are joined into one answer); cut-off
         * tool calls are regenerated once with the raised limit, then answered with placeholders, counted and bounded.
         */
        private TurnResult truncated(ModelClient.Reply reply, Usage u) {
            RecoverySettings rs = engine.settings.recovery();
            boolean escalated = false;
            Integer cur = currentMaxOutput();
            int cap = Math.min(rs.escalatedMaxOutputTokens(),
                    engine.settings.compaction().limitsFor(currentModel()).maxOutputTokens());
            if (rec.maxOutputTokens() == null && (cur == null || cap > cur)) {
                rec = new AgentState.Recovery(rec.model(), rec.consecutiveOverloads(), cap, rec.continuations(),
                        rec.truncatedToolRounds(), rec.reactiveCompacted());
                escalated = true;
                emitRetry(Event.newData().put("action", "escalate_max_tokens").put("from", cur == null ? 0 : cur)
                        .put("to", cap));
            }
            if (!reply.toolCalls().isEmpty()) {
                if (escalated) {
                    step(); // regenerate with the raised limit: the cut-off calls are dropped, never run
                    return null;
                }
                int n = rec.truncatedToolRounds() + 1;
                rec = new AgentState.Recovery(rec.model(), rec.consecutiveOverloads(), rec.maxOutputTokens(),
                        rec.continuations(), n, rec.reactiveCompacted());
                Message a = Message.assistant(reply.text(), withIds(reply.toolCalls()));
                conv.add(a);
                for (ModelToolCall c : a.toolCalls()) {
                    conv.add(Message.tool(c.id(), c.name(), TRUNCATED_CALL, true));
                }
                step();
                emitAssistant(a, reply, u);
                emitRetry(Event.newData().put("action", "truncated_tool_calls").put("count", n)
                        .put("max", rs.maxTruncatedToolRounds()));
                if (n > rs.maxTruncatedToolRounds()) {
                    return fail("Stopped: the model's tool calls were cut off at the output limit " + n
                            + " times in this turn.");
                }
                return null;
            }
            if (rec.continuations() >= rs.maxContinuations()) {
                ModelClient.Reply joined = joinContinuations(reply);
                Message a = Message.assistant((joined.text() == null ? "" : joined.text())
                        + "\n\n[the answer was cut off at the output limit after " + rs.maxContinuations()
                        + " continuations]", List.of());
                conv.add(a);
                step();
                emitAssistant(a, joined, u);
                emitRetry(Event.newData().put("action", "continuation_limit").put("max", rs.maxContinuations()));
                return null; // a final answer: the loop completes the turn
            }
            int n = rec.continuations() + 1;
            rec = new AgentState.Recovery(rec.model(), rec.consecutiveOverloads(), rec.maxOutputTokens(), n,
                    rec.truncatedToolRounds(), rec.reactiveCompacted());
            conv.add(Message.assistant(reply.text() == null ? "" : reply.text(), List.of()));
            conv.add(Message.user(RecoverySettings.CONTINUATION_PROMPT));
            step();
            emitRetry(Event.newData().put("action", "continue").put("continuation", n)
                    .put("max", rs.maxContinuations()).put("maxOutputTokens", currentMaxOutput() == null ? 0
                            : currentMaxOutput()));
            return null;
        }

        /** Replaces a trailing chain of (fragment, continuation prompt) pairs by one answer: fragments + reply. */
        private ModelClient.Reply joinContinuations(ModelClient.Reply reply) {
            StringBuilder joined = null;
            List<String> frags = new ArrayList<>();
            while (conv.size() >= 2) {
                Message last = conv.get(conv.size() - 1);
                Message prev = conv.get(conv.size() - 2);
                if (last.role() != Message.Role.USER || !RecoverySettings.CONTINUATION_PROMPT.equals(last.content())
                        || prev.role() != Message.Role.ASSISTANT || prev.hasToolCalls()) {
                    break;
                }
                frags.add(0, prev.content() == null ? "" : prev.content());
                conv.remove(conv.size() - 1);
                conv.remove(conv.size() - 1);
            }
            if (frags.isEmpty()) {
                return reply;
            }
            stats = null;
            joined = new StringBuilder();
            frags.forEach(joined::append);
            joined.append(reply.text() == null ? "" : reply.text());
            return new ModelClient.Reply(joined.toString(), reply.toolCalls(), reply.finishReason(),
                    reply.inputTokens(), reply.outputTokens(), reply.model());
        }

        // ---- compaction (s08) -----------------------------------------------------------------------------------

        private String storeKey() {
            return main ? agentId() : agentId() + "/sub";
        }

        private final Layers.Store store = new Layers.Store() {
            @Override
            public String toolResult(Message m) {
                return engine.transcripts.write(storeKey(), "tool-result-" + FileTranscriptStore.safe(
                        String.valueOf(m.toolCallId())) + "-" + UUID.randomUUID().toString().substring(0, 8) + ".txt",
                        m.content());
            }

            @Override
            public String transcript(List<Message> conversation) {
                return engine.transcripts.write(storeKey(), "transcript-" + TRANSCRIPT_TIME.format(
                        java.time.LocalDateTime.now(java.time.ZoneOffset.UTC)) + "-"
                        + UUID.randomUUID().toString().substring(0, 8) + ".jsonl", Transcripts.jsonl(conversation));
            }
        };

        /** Estimated prompt tokens: the provider's last report plus an estimate of what was added since. */
        private long estimate() {
            if (stats != null && stats.messages() <= conv.size()) {
                return stats.promptTokens() + Tokens.of(conv, stats.messages(), conv.size());
            }
            if (fixedTokens < 0) {
                long t = Tokens.of(systemPrompt());
                for (ToolSpecification spec : specs) {
                    t += Tokens.of(spec.name()) + Tokens.of(spec.description()) + Tokens.of(String.valueOf(
                            spec.parameters()));
                }
                fixedTokens = t;
            }
            return fixedTokens + Tokens.of(conv, 0, conv.size());
        }

        /** The pipeline before each call, cheapest first: L0, L1, L2, then L3 only while still over the threshold. */
        private void compactBeforeCall() {
            if (compactFocus != null) {
                String focus = compactFocus;
                compactFocus = null;
                if (summarize("manual", focus.isBlank() ? null : focus)) {
                    return;
                }
            }
            CompactionSettings cs = engine.settings.compaction();
            apply(Layers.persistOversized(conv, cs, store), "L0");
            apply(Layers.snip(conv, cs, request, store), "L1");
            long budget = cs.promptBudget(currentModel(), currentMaxOutput());
            long est = estimate();
            if (est > cs.microCompactRatio() * budget) {
                apply(Layers.microCompact(conv, cs, store), "L2");
                est = estimate();
            }
            if (est > cs.autoCompactRatio() * budget) {
                summarize("auto", null);
            }
        }

        private void apply(Layers.Result r, String layer) {
            if (!r.isChanged()) {
                return;
            }
            long before = estimate();
            int msgsBefore = conv.size();
            conv.clear();
            conv.addAll(r.messages());
            stats = null;
            step();
            ObjectNode d = Event.newData().put("turnId", ctx.turnId()).put("layer", layer).put("changed", r.changed())
                    .put("messagesBefore", msgsBefore).put("messagesAfter", conv.size())
                    .put("tokensBefore", before).put("tokensAfter", estimate());
            if (r.transcript() != null) {
                d.put("transcript", r.transcript());
            }
            emitCompacted(d);
        }

        private void emitCompacted(ObjectNode d) {
            if (ctx.role() == AgentRole.SUBAGENT) {
                d.put("subagent", true);
            }
            emit(EventType.COMPACTED, d);
        }

        /**
         * L3: PreCompact hooks → the transcript is written → the summariser reads the most recent content (and the
         * focus) → the conversation becomes summary + todos + loaded skills + latest request + the last turns.
         * Returns false (conversation unchanged) when the summary call failed.
         */
        private boolean summarize(String why, String focus) {
            hooks.preCompact(List.copyOf(conv), ctx);
            CompactionSettings cs = engine.settings.compaction();
            long before = estimate();
            int msgsBefore = conv.size();
            String transcript = store.transcript(conv);
            CompactionSettings.ModelLimits limits = cs.limitsFor(currentModel());
            String input = Summary.input(conv, (long) (limits.contextWindow() * cs.summaryInputRatio()), focus, request);
            ModelClient.Reply r;
            try {
                r = chatWithRetry(model -> new ModelClient.Request(modelUser, Summary.instructions(),
                        List.of(Message.user(input)), List.of(), model, cs.summaryMaxTokens()));
            } catch (TurnEnd | ContextTooLong e) {
                String why2 = e instanceof ContextTooLong c ? c.failure.describe() : e.getMessage();
                LOG.warnf("compaction summary failed: %s team=%s agent=%s turn=%s", why2, agent.team(), agent.agent(),
                        ctx.turnId());
                emit(EventType.ERROR, Event.newData().put("turnId", ctx.turnId()).put("message",
                        "compaction summary failed: " + why2).put("transcript", transcript));
                return false;
            }
            Usage u = new Usage(r.inputTokens(), r.outputTokens(), 1, engine.settings.cost(r.model(), r.inputTokens(),
                    r.outputTokens()));
            loopUsage = loopUsage.plus(u);
            if (main) {
                usage = usage.plus(u);
            }
            int tail = Summary.tailStart(conv, cs.keepRecentTurns(), (long) (limits.contextWindow()
                    * cs.summaryTailRatio()));
            String todoText = main ? todos.items().stream().map(t -> "- [" + t.status() + "] " + t.content())
                    .collect(java.util.stream.Collectors.joining("\n")) : "";
            List<Message> next = Conversation.repair(Summary.rebuild(conv, tail, r.text(), transcript, request,
                    todoText, main ? List.copyOf(loadedSkills) : List.of(), why));
            conv.clear();
            conv.addAll(next);
            stats = null;
            step();
            ObjectNode d = Event.newData().put("turnId", ctx.turnId()).put("layer", "L3").put("reason", why)
                    .put("transcript", transcript).put("messagesBefore", msgsBefore).put("messagesAfter", conv.size())
                    .put("tokensBefore", before).put("tokensAfter", estimate());
            if (focus != null) {
                d.put("focus", focus);
            }
            emitCompacted(d);
            return true;
        }

        /** Gives calls without an id one (some providers omit it), so every result can be paired. */
        private List<ModelToolCall> withIds(List<ModelToolCall> in) {
            List<ModelToolCall> out = new ArrayList<>(in.size());
            for (int i = 0; i < in.size(); i++) {
                ModelToolCall c = in.get(i);
                out.add(c.id() == null || c.id().isBlank()
                        ? new ModelToolCall("call_" + ctx.turnId().substring(0, 8) + "_" + calls + "_" + i, c.name(),
                                c.arguments())
                        : c);
            }
            return out;
        }

        private String systemPrompt() {
            boolean skillsOn = offered.contains(LoadSkillTool.NAME);
            PromptInputs in = new PromptInputs(ctx.role(), agent.team(), agent.agent(), agent.workspaceText(), offered,
                    skillsOn ? skills.list() : List.of(), main ? engine.memory.index(ctx) : "",
                    main ? agent.teamContext().get() : "");
            return cache.forCall(in, main ? List.of(engine.memory.relevant(conv, ctx)) : List.of());
        }

        private Optional<String> budgetExceeded() {
            EngineSettings s = engine.settings;
            if (s.maxTokensPerTurn() > 0 && loopUsage.totalTokens() >= s.maxTokensPerTurn()) {
                return Optional.of("Stopped: this turn used " + loopUsage.totalTokens() + " tokens, its budget is "
                        + s.maxTokensPerTurn() + ".");
            }
            if (main && s.maxTokensPerAgent() > 0 && usage.totalTokens() >= s.maxTokensPerAgent()) {
                return Optional.of("Stopped: agent " + agentId() + " used " + usage.totalTokens()
                        + " tokens, its budget is " + s.maxTokensPerAgent() + ".");
            }
            return Optional.empty();
        }

        /** Runs {@code pending} in order; returns a result when the turn must end. */
        private TurnResult executeAll(List<ModelToolCall> pending) {
            String notice = null;
            for (int i = 0; i < pending.size(); i++) {
                ModelToolCall c = pending.get(i);
                if (cancelRequested) {
                    skipRest(pending, i, "not run: the turn was cancelled");
                    return end(StopReason.CANCELLED, "The turn was cancelled.");
                }
                ToolResult result;
                long t0 = System.nanoTime();
                emitToolStarted(c);
                try {
                    result = dispatch(c);
                } catch (ToolInfrastructureException e) {
                    LOG.warnf("tool infrastructure failed: %s team=%s agent=%s turn=%s call=%s", e.getMessage(),
                            agent.team(), agent.agent(), ctx.turnId(), c.id());
                    record(c, ToolResult.error("infrastructure", e.getMessage()), t0);
                    skipRest(pending, i + 1, "not run: the turn ended after an infrastructure failure");
                    emit(EventType.ERROR, Event.newData().put("turnId", ctx.turnId()).put("message", e.getMessage()));
                    return end(StopReason.ERROR, "A tool could not run: " + e.getMessage());
                }
                record(c, result, t0);
                if (main && subagentUsage.calls() > 0) {
                    loopUsage = loopUsage.plus(subagentUsage);
                    subagentUsage = Usage.ZERO;
                }
                if (result.error() || !c.name().equals(TodoWriteTool.NAME)) {
                    // counted per round, not per call
                } else if (main) {
                    roundsSinceTodo = 0;
                    ArrayNode items = Event.newData().putArray("todos");
                    todos.items().forEach(t -> items.addObject().put("content", t.content()).put("status", t.status()));
                    ObjectNode d = Event.newData().put("turnId", ctx.turnId());
                    d.set("todos", items);
                    emit(EventType.TODO_UPDATED, d);
                }
                if (!result.error() && c.name().equals(CompactTool.NAME)) {
                    ToolArguments.Parsed p = ToolArguments.parse(c.arguments(), null);
                    compactFocus = p.ok() ? p.args().path("focus").asText("") : "";
                }
                if (!result.error() && c.name().equals(LoadSkillTool.NAME)) {
                    ToolArguments.Parsed p = ToolArguments.parse(c.arguments(), null);
                    if (p.ok()) {
                        loadedSkills.add(p.args().path("name").asText());
                    }
                }
                stuck = StuckGuard.observe(stuck, c.name() + " " + canonical(c.arguments()),
                        result.error() ? result.content() : null);
                StuckGuard.Verdict v = StuckGuard.verdict(stuck, engine.settings.stuckNoticeAt(),
                        engine.settings.stuckEndAt());
                step();
                if (v == StuckGuard.Verdict.END) {
                    skipRest(pending, i + 1, "not run: the turn ended because the agent was repeating itself");
                    return end(StopReason.STUCK, "Stopped: the agent repeated the same "
                            + (stuck.sameError() >= stuck.sameCall() ? "error" : "tool call") + " " + stuck.level()
                            + " times in a row.");
                }
                if (v == StuckGuard.Verdict.NOTICE) {
                    notice = StuckGuard.notice(stuck);
                }
            }
            if (notice != null) {
                conv.add(Message.user(notice));
                step();
            }
            return null;
        }

        private void skipRest(List<ModelToolCall> pending, int from, String why) {
            for (int j = from; j < pending.size(); j++) {
                ModelToolCall c = pending.get(j);
                conv.add(Message.tool(c.id(), c.name(), why, true));
            }
            step();
        }

        private void record(ModelToolCall c, ToolResult result, long t0) {
            conv.add(Message.tool(c.id(), c.name(), result.content(), result.error()));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            String content = result.content();
            int max = engine.settings.previewChars();
            ObjectNode d = Event.newData().put("turnId", ctx.turnId()).put("callId", c.id()).put("tool", c.name())
                    .put("durationMs", ms).put("error", result.error())
                    .put("preview", content.length() > max ? content.substring(0, max) + "…" : content);
            if (result.rule() != null) {
                d.put("rule", result.rule());
            }
            if (ctx.role() == AgentRole.SUBAGENT) {
                d.put("subagent", true);
            }
            emit(EventType.TOOL_CALL_FINISHED, d);
        }

        private void emitToolStarted(ModelToolCall c) {
            String args = c.arguments() == null ? "" : c.arguments();
            int max = engine.settings.previewChars();
            ObjectNode d = Event.newData().put("turnId", ctx.turnId()).put("callId", c.id()).put("tool", c.name())
                    .put("args", args.length() > max ? args.substring(0, max) + "…" : args);
            if (ctx.role() == AgentRole.SUBAGENT) {
                d.put("subagent", true);
            }
            emit(EventType.TOOL_CALL_STARTED, d);
        }

        private void emitAssistant(Message m, ModelClient.Reply reply, Usage u) {
            ObjectNode d = Event.newData().put("turnId", ctx.turnId()).put("finishReason", reply.finishReason())
                    .put("inputTokens", u.inputTokens()).put("outputTokens", u.outputTokens());
            if (m.content() != null) {
                d.put("text", m.content());
            }
            ArrayNode calls = d.putArray("toolCalls");
            m.toolCalls().forEach(c -> calls.add(c.name()));
            if (ctx.role() == AgentRole.SUBAGENT) {
                d.put("subagent", true);
            }
            emit(EventType.ASSISTANT_MESSAGE, d);
        }

        /** Validation, allowlist, permission, hooks, the tool: always exactly one result (or an infra exception). */
        private ToolResult dispatch(ModelToolCall c) {
            Optional<Tool> found = engine.tools.find(c.name());
            if (found.isEmpty()) {
                return ToolResult.error("unknown-tool", "unknown tool '" + c.name() + "'; available tools: "
                        + String.join(", ", offered));
            }
            Tool tool = found.get();
            if (!allowlist.contains(tool.name())) {
                return ToolResult.error("allowlist", "tool '" + tool.name() + "' is not available to this agent ("
                        + ctx.role().name().toLowerCase() + "); available tools: " + String.join(", ", offered));
            }
            ToolArguments.Parsed parsed = ToolArguments.parse(c.arguments(), tool.spec().parameters());
            if (!parsed.ok()) {
                return ToolResult.error("schema", "invalid arguments for " + tool.name() + ": "
                        + String.join("; ", parsed.problems()));
            }
            ToolCall call = new ToolCall(c.id(), tool.name(), parsed.args());
            PermissionDecision pd = PermissionGate.decide(agent.mode().get(), tool.name(), tool.isMutating(),
                    call.args(), policy, CommandRules.Workspace.relative(ctx.cwd()), ctx.unattended());
            if (pd.kind() == PermissionDecision.Kind.DENY) {
                return ToolResult.error("permission:" + pd.rule(), "permission denied by rule '" + pd.rule() + "': "
                        + pd.reason());
            }
            if (pd.kind() == PermissionDecision.Kind.ASK) {
                ApprovalGateway.Decision ad = engine.approvals.request(new ApprovalGateway.Request(agent.team(),
                        agent.agent(), ctx.turnId(), c.id(), tool.name(), call.args(), pd.reason()),
                        engine.settings.approvalTimeout());
                if (ad == null || !ad.approved()) {
                    String why = ad == null || ad.reason() == null ? "no approval" : ad.reason();
                    return ToolResult.error("permission:denied", "permission denied: " + pd.reason()
                            + " needed approval and it was refused (" + why + ")");
                }
            }
            Optional<String> blocked = hooks.preToolUse(call, ctx);
            if (blocked.isPresent()) {
                return ToolResult.error("hook", blocked.get());
            }
            ToolResult result;
            try {
                result = tool.execute(call, ctx);
                if (result == null) {
                    result = ToolResult.ok(null);
                }
            } catch (ToolFailure f) {
                result = f.toResult();
            } catch (ToolInfrastructureException e) {
                throw e;
            } catch (RuntimeException e) {
                LOG.errorf(e, "tool %s failed unexpectedly team=%s agent=%s call=%s", tool.name(), agent.team(),
                        agent.agent(), c.id());
                result = ToolResult.error("internal", "the tool " + tool.name() + " failed internally: " + e);
            }
            return hooks.postToolUse(call, result, ctx);
        }

        private TurnResult end(StopReason reason, String text) {
            TurnResult r = new TurnResult(ctx.turnId(), reason, text, calls, loopUsage);
            if (main) {
                ObjectNode d = Event.newData().put("turnId", ctx.turnId()).put("reason", reason.wire())
                        .put("modelCalls", calls);
                if (text != null) {
                    d.put("text", text);
                }
                ObjectNode u = d.putObject("usage");
                u.put("inputTokens", loopUsage.inputTokens()).put("outputTokens", loopUsage.outputTokens())
                        .put("costUsd", loopUsage.costUsd());
                d.putObject("agentUsage").put("inputTokens", usage.inputTokens())
                        .put("outputTokens", usage.outputTokens()).put("costUsd", usage.costUsd());
                String req = turn.request();
                turn = null;
                save();
                emit(EventType.TURN_COMPLETED, d);
                if (reason == StopReason.COMPLETED) {
                    int from = Layers.lastIndexOfRequest(conv, req);
                    try {
                        engine.memory.turnCompleted(List.copyOf(conv.subList(from < 0 ? Math.max(0, conv.size() - 20)
                                : from, conv.size())), ctx);
                    } catch (RuntimeException e) {
                        LOG.warnf(e, "memory extraction could not start. team=%s agent=%s", agent.team(), agent.agent());
                    }
                }
            }
            return r;
        }
    }

    /** The content of a tool result for a call cut off at the output limit. */
    static final String TRUNCATED_CALL = "[not run: your reply was cut off at the output limit, so this call's "
            + "arguments may be incomplete. Make smaller calls, e.g. write a large file in parts.]";
    private static final java.time.format.DateTimeFormatter TRANSCRIPT_TIME =
            java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'");

    /** A context-length error: reactive compaction, once per turn. */
    private static final class ContextTooLong extends RuntimeException {
        final transient ModelFailure failure;

        ContextTooLong(ModelFailure f) {
            super(f.describe(), null, false, false);
            this.failure = f;
        }
    }

    /** A model failure that ends the turn. */
    private static final class TurnEnd extends RuntimeException {
        final StopReason reason;

        TurnEnd(StopReason reason, String message) {
            super(message, null, false, false);
            this.reason = reason;
        }
    }

    private static String canonical(String raw) {
        ToolArguments.Parsed p = ToolArguments.parse(raw, null);
        return p.ok() ? p.args().toString() : String.valueOf(raw);
    }
}
