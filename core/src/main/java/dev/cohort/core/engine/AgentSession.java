package dev.cohort.core.engine;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.engine.hooks.CommandHook;
import dev.cohort.core.engine.hooks.Hooks;
import dev.cohort.core.engine.permission.PermissionDecision;
import dev.cohort.core.engine.permission.PermissionGate;
import dev.cohort.core.engine.permission.PermissionPolicy;
import dev.cohort.core.engine.prompt.PromptCache;
import dev.cohort.core.engine.prompt.PromptInputs;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Ids;
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
 * <p><b>A turn</b> ({@link #run}): UserPromptSubmit hooks rewrite the input → it is appended → skills are re-read →
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
    private final Hooks hooks;
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
    private volatile boolean cancelRequested;
    /** Usage of subagents run by the current call, added to the turn's usage by the main loop. */
    private Usage subagentUsage = Usage.ZERO;

    AgentSession(AgentEngine engine, AgentContext agent, AgentState state) {
        this.engine = engine;
        this.agent = agent;
        this.hooks = engine.hooks.with(agent.commandHooks().stream().map(CommandHook::toHook).toList());
        this.policy = agent.rules().isEmpty() ? engine.policy : engine.policy.withRules(agent.rules());
        this.skills = new SkillLibrary(engine.bundledSkills);
        this.messages = new ArrayList<>(state.messages());
        this.todos = new TodoList(state.todos());
        this.roundsSinceTodo = state.roundsSinceTodo();
        this.loadedSkills = new LinkedHashSet<>(state.loadedSkills());
        this.usage = state.usage();
        this.turn = state.turn();
    }

    /** The current state (the value the host saves). */
    public AgentState snapshot() {
        return new AgentState(AgentState.VERSION, messages, todos.items(), roundsSinceTodo, List.copyOf(loadedSkills),
                usage, turn);
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
        Loop loop = mainLoop();
        String input = hooks.userPromptSubmit(text, loop.ctx);
        messages.add(Message.user(input));
        save();
        ObjectNode data = Event.newData().put("turnId", turn.turnId()).put("source", turn.source());
        emit(EventType.TURN_STARTED, data);
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

    private Loop mainLoop() {
        Set<String> allowed = new LinkedHashSet<>(agent.allowlist());
        allowed.retainAll(engine.tools.names());
        Ctx ctx = new Ctx(agent.role(), turn.turnId(), turn.unattended());
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
            }
        }

        private void sync() {
            if (main) {
                turn = new AgentState.TurnProgress(turn.turnId(), turn.source(), turn.unattended(), calls,
                        turn.stopContinuations(), loopUsage, stuck);
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
                                    turn.stopContinuations() + 1, loopUsage, stuck);
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
                // compaction hook point (issue II): the context manager shrinks `conv` here
                List<Message> repaired = Conversation.repair(conv);
                if (repaired != conv) {
                    conv.clear();
                    conv.addAll(repaired);
                }
                String system = systemPrompt();
                ModelClient.Reply reply;
                try {
                    reply = engine.model.chat(new ModelClient.Request(modelUser, system, List.copyOf(conv), specs,
                            engine.settings.model(), engine.settings.maxOutputTokens()));
                } catch (RuntimeException e) {
                    LOG.warnf("model call failed: %s team=%s agent=%s turn=%s", e.toString(), agent.team(),
                            agent.agent(), turnId);
                    if (main) {
                        emit(EventType.ERROR, Event.newData().put("turnId", turnId).put("message",
                                "model call failed: " + e.getMessage()));
                    }
                    return end(StopReason.ERROR, "The model call failed: " + e.getMessage());
                }
                calls++;
                double cost = engine.settings.cost(reply.model(), reply.inputTokens(), reply.outputTokens());
                Usage u = new Usage(reply.inputTokens(), reply.outputTokens(), 1, cost);
                loopUsage = loopUsage.plus(u);
                if (main) {
                    usage = usage.plus(u);
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
                    call.args(), policy, ctx.unattended());
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
                turn = null;
                save();
                emit(EventType.TURN_COMPLETED, d);
            }
            return r;
        }
    }

    private static String canonical(String raw) {
        ToolArguments.Parsed p = ToolArguments.parse(raw, null);
        return p.ok() ? p.args().toString() : String.valueOf(raw);
    }
}
