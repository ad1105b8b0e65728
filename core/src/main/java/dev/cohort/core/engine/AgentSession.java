package dev.cohort.core.engine;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.engine.hooks.CommandHook;
import dev.cohort.core.engine.hooks.Hooks;
import dev.cohort.core.engine.hooks.PreToolUseHook;
import dev.cohort.core.engine.hooks.WorkspaceHookSettings;
import dev.cohort.core.engine.permission.PermissionMode;
import dev.cohort.core.engine.permission.PermissionPolicy;
import dev.cohort.core.engine.permission.PermissionRule;
import dev.cohort.core.engine.permission.WorkspacePermissionSettings;
import dev.cohort.core.engine.prompt.PromptCache;
import dev.cohort.core.mcp.McpServerConfig;
import dev.cohort.core.mcp.McpServers;
import dev.cohort.core.mcp.WorkspaceMcpSettings;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.skills.SkillLibrary;
import dev.cohort.core.tools.subagent.SubagentRunner;
import dev.cohort.core.tools.todo.TodoList;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolNames;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.cohort.core.tools.workspace.WorkspaceReadCache;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import io.opentelemetry.context.Context;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jboss.logging.Logger;
import org.jboss.logging.MDC;

/**
 * One agent: its saved state and the API its host drives. Not thread-safe: a host runs one turn of an
 * agent at a time; {@link #cancel()} and {@link #detach()} may be called from any thread.
 *
 * <p><b>A turn</b> ({@link #run}): {@code turn_started} → the turn's hooks are assembled (the engine's built-in
 * hooks, the agent's own Java hooks, the team's command hooks, the workspace settings file's), and so are its
 * permission rules (the agent's, the team's, the workspace settings file's) → skills are re-read
 * → UserPromptSubmit hooks rewrite the input → it is appended and saved → the {@link TurnLoop} runs it to its end.
 * {@link #resume()} continues a restored turn in progress at its last saved step.
 *
 * <p><b>How a call returns.</b> A turn that ended ({@link TurnResult#inProgress()} false) has emitted
 * {@code turn_completed} and saved the state without a turn. A turn that did not end is saved in progress:
 * {@link StopReason#PARKED} (a call waits for an approval: {@link #waiting()}; resume it when the approval is
 * answered) or {@link StopReason#DETACHED} (the host asked to hand the turn over: resume it here or on another
 * replica). Neither holds a thread: the host may drop the session and open a new one from the saved state.
 */
public final class AgentSession implements ModelCaller.Signals {
    private static final Logger LOG = Logger.getLogger(AgentSession.class);

    private final AgentEngine engine;
    private final AgentContext agent;
    private final WorkspaceHookSettings workspaceHooks;
    /** The rules in force this turn (the agent's, the team's, the workspace settings file's), set per turn. */
    private PermissionPolicy policy;
    /** The team's rules as last read through the host: kept when a read fails, so a deny is never dropped. */
    private List<PermissionRule> lastTeamRules = List.of();
    /** The team's MCP servers last read, kept when they cannot be read. */
    private Map<String, McpServerConfig> lastTeamMcp = Map.of();
    /** The MCP servers of the turn under way (its subagents get them too). */
    private List<McpServerConfig> mcpServers = List.of();
    /** The line numbers read_file puts before each line. */
    private static final java.util.regex.Pattern NUMBERED_LINE = java.util.regex.Pattern.compile("^ *\\d+\\t",
            java.util.regex.Pattern.MULTILINE);
    private final SkillLibrary skills;
    private final PromptCache promptCache = new PromptCache();
    private final PromptCache subPromptCache = new PromptCache();
    /** The engine's hooks plus this turn's (agent, team settings, workspace settings file), set per turn. */
    private Hooks hooks;

    private final LiveConversation conv;
    private final TodoList todos;
    private int roundsSinceTodo;
    private final LinkedHashSet<String> loadedSkills;
    private Usage usage;
    private TurnState turn;
    private volatile boolean cancelRequested;
    private volatile boolean detachRequested;
    /** Usage of subagents run by the current call, added to the turn's usage once the call is recorded. */
    private Usage subagentUsage = Usage.ZERO;
    /** Saves run beside a model request ({@link #saveBehind}): one virtual thread each. */
    private static final ExecutorService SAVERS = Executors
            .newThreadPerTaskExecutor(Thread.ofVirtual().name("agent-save-", 0).factory());
    /** A step's state not saved yet: saved beside the next model request or by the next save. */
    private boolean saveDeferred;
    /** The save under way beside a model request, its inbox ids and how many step events it carries. */
    private CompletableFuture<Void> saving;
    private List<String> savingIds = List.of();
    private int savingEvents;
    /** Inbox items appended since the last successful save: their ids go with the next save. */
    private final List<String> unsavedInjected = new ArrayList<>();
    /**
     * The per-day team budgets this session already warned of, as {@code budget@limit@day}: the day's usage comes from
     * the host's ledger, which may not yet hold this agent's last calls, so the same crossing could be seen twice.
     */
    private final Set<String> dayWarnings = ConcurrentHashMap.newKeySet();
    /** Events of the steps since the last successful save ({@link TurnEvents.Pending}): they go with the next save. */
    private final List<Event> unsavedEvents = new ArrayList<>();
    private final TurnEvents.Pending pendingEvents = new TurnEvents.Pending() {
        @Override
        public void add(Event e) {
            unsavedEvents.add(e);
        }

        @Override
        public void flush() {
            flushEvents();
        }
    };

    AgentSession(AgentEngine engine, AgentContext agent, AgentState state) {
        this.engine = engine;
        this.agent = agent;
        this.hooks = engine.hooks.with(agent.hooks()).withReporter(this::hookFailedOutsideTurn);
        this.workspaceHooks = engine.hookSettingsFile == null ? null : new WorkspaceHookSettings(engine.hookSettingsFile);
        this.policy = agent.rules().isEmpty() ? engine.policy : engine.policy.withRules(agent.rules());
        this.skills = new SkillLibrary(engine.bundledSkills);
        this.conv = new LiveConversation(state.messages(), state.context());
        this.todos = new TodoList(state.todos());
        this.roundsSinceTodo = state.roundsSinceTodo();
        this.loadedSkills = new LinkedHashSet<>(state.loadedSkills());
        this.usage = state.usage();
        this.turn = state.turn() == null ? null : TurnState.of(state.turn());
    }

    /** The current state (the value the host saves). */
    public AgentState snapshot() {
        return new AgentState(AgentState.VERSION, conv.messages, todos.items(), roundsSinceTodo,
                List.copyOf(loadedSkills), usage, turn == null ? null : turn.progress(), conv.stats);
    }

    /** {@code true} while a turn was started and not ended (after a restore, or parked: call {@link #resume()}). */
    public boolean turnInProgress() {
        return turn != null;
    }

    /** What the turn in progress waits for (an approval), empty while it runs or when there is none. */
    public Optional<AgentState.Wait> waiting() {
        return turn == null ? Optional.empty() : Optional.ofNullable(turn.waiting);
    }

    /**
     * Ends the turn at the next step (a user's interrupt): calls already started finish and are recorded, the rest
     * are answered "not run", and {@code turn_completed} says {@code cancelled}. Called before {@link #resume()} on a
     * parked turn, it ends that turn without running the waiting call.
     */
    public void cancel() {
        cancelRequested = true;
    }

    /**
     * Stops at the next step boundary and <em>keeps</em> the turn in progress, without {@code turn_completed}, so
     * this or another host can {@link #resume()} it (a partition revoked, a replica shutting down). A model call in
     * flight is finished, or, when the host also interrupts the thread running the turn, cut short; either way it is
     * not counted as a model failure. The run returns {@link StopReason#DETACHED}.
     */
    public void detach() {
        detachRequested = true;
    }

    /** Runs a turn for a prompt from a person or the host. */
    public TurnResult run(String text, String source, boolean unattended) {
        return run(text, source, unattended, List.of());
    }

    /**
     * Runs a turn whose input is made of inbox items the host took itself: their ids go to the
     * {@link StateStore} with the turn's first save, which contains the input.
     */
    public TurnResult run(String text, String source, boolean unattended, List<String> inputIds) {
        return run(text, source, unattended, inputIds, null);
    }

    /**
     * Runs a turn as {@link #run(String, String, boolean, List)}, answering prompt {@code promptId} ({@code null}:
     * none): each event of the turn carries it, and its {@code turn_completed} lists it with the prompts injected later.
     */
    public TurnResult run(String text, String source, boolean unattended, List<String> inputIds, String promptId) {
        if (turn != null) {
            throw new IllegalStateException("agent " + agentId() + " has a turn in progress; resume() it first");
        }
        cancelRequested = false;
        detachRequested = false;
        turn = new TurnState(Ids.newId(), source == null ? "http" : source, unattended, null);
        if (promptId != null) {
            turn.promptIds.add(promptId);
        }
        TurnEvents events = events(turn.turnId, false);
        // announced first: watchers see the turn at once, before skills are re-read through the workspace
        events.turnStarted(turn.source);
        TurnLoop loop = mainLoop(events);
        String input = hooks.userPromptSubmit(text, loop.ctx);
        turn.request = input;
        conv.add(Message.user(input));
        unsavedInjected.addAll(inputIds);
        deferSave(); // saved beside the turn's first model request (or before anything else that needs it)
        return loop.run();
    }

    /** Runs a turn for a prompt from a person (attended, source {@code http}). */
    public TurnResult run(String text) {
        return run(text, "http", false);
    }

    /** Continues the turn in progress of a restored (or parked, or detached) state at its last saved step. */
    public TurnResult resume() {
        if (turn == null) {
            throw new IllegalStateException("agent " + agentId() + " has no turn in progress");
        }
        detachRequested = false;
        turn.waiting = null; // the gate runs again for the waiting call and parks anew if still unanswered
        return mainLoop(events(turn.turnId, false)).run();
    }

    // ---- what the loop uses of the session -----------------------------------------------------------------------

    @Override
    public boolean cancelled() {
        return cancelRequested;
    }

    @Override
    public boolean detached() {
        return detachRequested;
    }

    AgentContext agent() {
        return agent;
    }

    PermissionPolicy permissionPolicy() {
        return policy;
    }

    TodoList todos() {
        return todos;
    }

    List<String> loadedSkills() {
        return List.copyOf(loadedSkills);
    }

    void skillLoaded(String name) {
        loadedSkills.add(name);
    }

    int roundsSinceTodo() {
        return roundsSinceTodo;
    }

    void countToolRound() {
        roundsSinceTodo++;
    }

    void resetRoundsSinceTodo() {
        roundsSinceTodo = 0;
    }

    Usage usage() {
        return usage;
    }

    void addUsage(Usage u) {
        usage = usage.plus(u);
    }

    Usage takeSubagentUsage() {
        Usage u = subagentUsage;
        subagentUsage = Usage.ZERO;
        return u;
    }

    /**
     * The inbox items to inject, without those this session holds already and has not saved yet (the turn's own input
     * until its save beside the first model request, or the items of a save that failed): a store lists an item as
     * pending until the save that contains it marks it taken, and an item is injected once.
     */
    List<InboxItem> drainInbox() {
        return agent.inbox().drain(List.copyOf(unsavedInjected));
    }

    void injected(String id) {
        unsavedInjected.add(id);
    }

    /** The turn ended: no turn in progress; a cancel asked for it is spent. */
    void endTurn() {
        turn = null;
        cancelRequested = false;
    }

    /**
     * Saves the state with the ids of the inbox items it contains for the first time, and the events of its steps:
     * in the save's transaction when the store keeps events, otherwise emitted right after the save. A save that
     * throws keeps both for the next save.
     */
    void save() {
        awaitSave();
        saveDeferred = false;
        StateStore store = agent.store();
        if (store == StateStore.NONE) {
            unsavedInjected.clear();
            flushEvents();
            return;
        }
        List<String> ids = List.copyOf(unsavedInjected);
        if (!unsavedEvents.isEmpty() && store.storesEvents()) {
            List<Event> events = List.copyOf(unsavedEvents);
            store.save(new StepSave(snapshot(), ids, events));
            unsavedEvents.subList(0, events.size()).clear();
        } else {
            store.save(StepSave.of(snapshot(), ids));
            flushEvents();
        }
        unsavedInjected.removeAll(ids);
    }

    /**
     * The turn's input step: it is saved beside the turn's first model request ({@link #saveBehind}), or by the next
     * {@link #save} if something else comes first (a tool call, the turn's end, a park). Only the input is: an input
     * lost with a crash is still pending in its source (its ids are not marked taken) and the next session takes it
     * again, whereas a tool result is saved before the next request leaves, so a call whose result the model saw is never
     * run or reported again.
     */
    void deferSave() {
        saveDeferred = true;
    }

    /**
     * Starts the deferred save on another thread, so the model request does not wait for it: the state as it is now
     * (an immutable snapshot), the ids of the inbox items it contains, the step events. {@link #awaitSave} joins it
     * before the reply is used, and so does every save, tool call and event before that: the saves stay in order, a
     * result is durable before the next step, and watchers see the events in the order they happened. A save that
     * fails is thrown by the join, as the save itself would have thrown it, and keeps its ids and events for the
     * next one.
     */
    void saveBehind() {
        awaitSave();
        if (!saveDeferred) {
            return;
        }
        StateStore store = agent.store();
        if (store == StateStore.NONE) {
            save();
            return;
        }
        saveDeferred = false;
        AgentState state = snapshot();
        List<String> ids = List.copyOf(unsavedInjected);
        List<Event> events = List.copyOf(unsavedEvents);
        boolean inTransaction = !events.isEmpty() && store.storesEvents();
        // the save's logs carry the turn's team, agent and turn
        Map<String, Object> mdc = new HashMap<>(MDC.getMap());
        Runnable task = () -> {
            mdc.forEach(MDC::put);
            try {
                if (inTransaction) {
                    store.save(new StepSave(state, ids, events));
                } else {
                    store.save(StepSave.of(state, ids));
                    events.forEach(e -> TurnEvents.emit(engine.events, e));
                }
            } finally {
                MDC.clear();
            }
        };
        saving = CompletableFuture.runAsync(Context.current().wrap(task), SAVERS);
        savingIds = ids;
        savingEvents = events.size();
    }

    /** Joins the save {@link #saveBehind} started, if any: see there. */
    void awaitSave() {
        CompletableFuture<Void> f = saving;
        if (f == null) {
            return;
        }
        saving = null;
        try {
            f.join();
        } catch (CompletionException e) {
            saveDeferred = true; // the state is still unsaved: the next save (the turn's end, a park) tries again
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
        unsavedInjected.removeAll(savingIds);
        unsavedEvents.subList(0, savingEvents).clear();
    }

    /** Emits the events still waiting for a save (an event that must not wait is next, or there is no store). */
    private void flushEvents() {
        awaitSave(); // the events of a save under way go first
        if (saveDeferred) {
            save(); // a deferred step's events go with its save, as they would have without the deferral
            return;
        }
        while (!unsavedEvents.isEmpty()) {
            TurnEvents.emit(engine.events, unsavedEvents.removeFirst());
        }
    }

    // ---- assembling a loop --------------------------------------------------------------------------------------

    private String agentId() {
        return Ids.agentId(agent.team(), agent.agent());
    }

    private TurnEvents events(String turnId, boolean subagent) {
        // a subagent's loop is never saved: its events go out at once (after the parent's pending ones)
        return new TurnEvents(engine.events, agent.team(), agent.agent(), turnId, subagent,
                engine.settings.previewChars(), pendingEvents, !subagent, turn == null ? List.of() : turn.promptIds);
    }

    private TurnLoop mainLoop(TurnEvents events) {
        Set<String> allowed = allowed();
        // the cwd is asked for once per turn start (a teammate's is its held task's worktree, a database read), not
        // once for the hook settings and again for the skills
        WorkspaceToolExecutor.Target target = new WorkspaceToolExecutor.Target(agent.team(), agent.agent(),
                agent.cwd().get());
        // the settings file is read once for its hooks and its permission rules
        WorkspaceToolExecutor settingsReads = agent.workspace() instanceof WorkspaceReadCache
                ? agent.workspace() : new SettingsReadOnce(agent.workspace());
        hooks = turnHooks(events, target, settingsReads);
        policy = turnPolicy(events, target, settingsReads);
        mcpServers = turnMcpServers(events, target, settingsReads);
        if (allowed.contains(ToolNames.LOAD_SKILL)) {
            try {
                skills.refresh(agent.workspace(), target);
            } catch (RuntimeException e) {
                LOG.warnf(e, "cannot read workspace skills; bundled ones only. team=%s agent=%s", agent.team(),
                        agent.agent());
            }
        }
        TurnContext ctx = context(agent.role(), turn.turnId, turn.unattended, LoopPolicy.PERSISTENT,
                allowed, engine.settings.maxModelCallsPerTurn(), agentId(), this::runSubagent, mcpTools(events));
        return new TurnLoop(engine, this, ctx, turn, conv, events, hooks, promptCache);
    }

    private TurnContext context(AgentRole role, String turnId, boolean unattended, LoopPolicy loop,
            Set<String> allowlist, int maxCalls, String user, SubagentRunner subagents, McpTurnTools mcp) {
        Set<String> offered = new LinkedHashSet<>(allowlist);
        offered.retainAll(engine.tools.names());
        return new TurnContext(agent.team(), agent.agent(), role, turnId, unattended, agent.cwd(), agent.workspace(),
                todos, skills, subagents, loop, Set.copyOf(allowlist), offered, engine.tools.specs(offered), user,
                maxCalls, user, agent.mode(), mcp);
    }

    /** The MCP tools of a loop of this agent: its servers' tools, listed at every step. */
    private McpTurnTools mcpTools(TurnEvents events) {
        if (engine.mcp == null || mcpServers.isEmpty()) {
            return McpTurnTools.NONE;
        }
        return new McpTurnTools(engine.mcp, agent.team(), agent.agent(), mcpServers,
                () -> agent.mode().get() == PermissionMode.PLAN, problem -> {
                    LOG.warnf("%s. team=%s agent=%s", problem, agent.team(), agent.agent());
                    events.settingsProblem(problem, null);
                });
    }

    /**
     * The MCP servers of this turn: those of the workspace settings file (the same read as its hooks and rules), then
     * the team's own (the host's, e.g. the API), which replace a file's server of the same name; only those serving
     * this agent. A file whose {@code mcpServers} are invalid is an {@code error} event and keeps its last good ones.
     */
    private List<McpServerConfig> turnMcpServers(TurnEvents events, WorkspaceToolExecutor.Target target,
            WorkspaceToolExecutor settingsReads) {
        if (engine.mcp == null) {
            return List.of();
        }
        Map<String, McpServerConfig> team;
        try {
            team = agent.mcpServers().get();
        } catch (RuntimeException e) {
            LOG.warnf(e, "cannot read the team's MCP servers. team=%s agent=%s", agent.team(), agent.agent());
            events.settingsProblem("cannot read the team's MCP servers: " + e.getMessage() + "; this turn keeps the"
                    + " last ones read", null);
            team = lastTeamMcp;
        }
        lastTeamMcp = team;
        Map<String, McpServerConfig> file = Map.of();
        if (engine.hookSettingsFile != null) {
            String path = engine.hookSettingsFile;
            WorkspaceToolExecutor.Target settingsAt = new WorkspaceToolExecutor.Target(target.team(), target.agent(),
                    null);
            ToolOutcome out;
            try {
                out = WorkspaceHookSettings.readSettingsFile(settingsReads, settingsAt, path);
            } catch (RuntimeException e) {
                out = null; // the hooks' read of the same file reported it
            }
            if (out == null || out.isError() && !WorkspaceHookSettings.notFound(out)) {
                file = engine.mcpSettings.kept(agent.team());
            } else {
                String text = out.isError() ? null
                        : NUMBERED_LINE.matcher(out.output() == null ? "" : out.output()).replaceAll("");
                WorkspaceMcpSettings.Result r = engine.mcpSettings.read(agent.team(), path, text);
                if (r.problem() != null) {
                    LOG.warnf("%s. team=%s agent=%s", r.problem(), agent.team(), agent.agent());
                    events.settingsProblem(r.problem(), path);
                }
                file = r.servers();
            }
        }
        return McpServers.forAgent(file, team, agent.agent());
    }

    /**
     * The hooks of this turn: the engine's, the agent's own, then the team's command hooks, then those of the
     * workspace settings file. A source that cannot be read is an {@code error} event and the turn runs without its
     * hooks (the workspace file's fails closed for mutating tools when it was broken after being good).
     */
    private Hooks turnHooks(TurnEvents events, WorkspaceToolExecutor.Target target,
            WorkspaceToolExecutor settingsReads) {
        Hooks base = engine.hooks.with(agent.hooks());
        List<CommandHook> commands = new ArrayList<>();
        try {
            commands.addAll(agent.commandHooks().get());
        } catch (RuntimeException e) {
            LOG.warnf(e, "cannot read the team's command hooks. team=%s agent=%s", agent.team(), agent.agent());
            events.settingsProblem("cannot read the team's hooks: " + e.getMessage() + "; this turn runs without them",
                    null);
        }
        if (workspaceHooks != null) {
            // always the team workspace's own settings, never a worktree's: a worktree's files come from commits,
            // which any agent of the team can make, while the workspace's settings directory only a person changes
            WorkspaceToolExecutor.Target settingsAt = new WorkspaceToolExecutor.Target(target.team(), target.agent(),
                    null);
            WorkspaceHookSettings.Result r = workspaceHooks.read(settingsReads, settingsAt);
            if (r.problem() != null) {
                LOG.warnf("%s. team=%s agent=%s", r.problem(), agent.team(), agent.agent());
                events.settingsProblem(r.problem(), workspaceHooks.path());
            }
            commands.addAll(r.hooks());
            if (r.failClosed()) {
                String why = r.problem();
                PreToolUseHook closed = (call, c) -> engine.tools.find(call.name()).map(Tool::isMutating).orElse(true)
                        ? Optional.of("blocked by rule '" + WorkspaceHookSettings.FAIL_CLOSED_RULE + "': " + why)
                        : Optional.empty();
                base = base.with(List.of(closed));
            }
        }
        return base.with(commands.stream().map(CommandHook::toHook).toList()).withReporter(events::hookFailed);
    }

    /**
     * The permission rules of this turn, for the agent and its subagents: the agent's own, the team's (set through the
     * host, e.g. the API), then those of the workspace settings file. A source that cannot be read or parsed is an
     * {@code error} event and keeps its last good rules, so a broken source never lifts a deny.
     */
    private PermissionPolicy turnPolicy(TurnEvents events, WorkspaceToolExecutor.Target target,
            WorkspaceToolExecutor settingsReads) {
        List<PermissionPolicy.Rule> rules = new ArrayList<>(agent.rules().isEmpty() ? engine.policy.rules()
                : agent.rules());
        try {
            lastTeamRules = agent.permissions().get().parse(PermissionRule.TEAM_ORIGIN, "permissions");
        } catch (RuntimeException e) {
            LOG.warnf(e, "cannot read the team's permission rules. team=%s agent=%s", agent.team(), agent.agent());
            events.settingsProblem("cannot read the team's permission rules: " + e.getMessage() + "; this turn keeps"
                    + " the last ones read (" + lastTeamRules.size() + ")", null);
        }
        rules.addAll(lastTeamRules);
        if (engine.permissionSettings != null) {
            // the team workspace's own file, never a worktree's (see turnHooks)
            WorkspacePermissionSettings.Result r = engine.permissionSettings.read(settingsReads,
                    new WorkspaceToolExecutor.Target(target.team(), target.agent(), null));
            if (r.problem() != null) {
                LOG.warnf("%s. team=%s agent=%s", r.problem(), agent.team(), agent.agent());
                if (!r.wholeFile()) {
                    // a problem of the file as a whole is the hooks' error event already (same file, same read)
                    events.settingsProblem(r.problem(), engine.permissionSettings.path());
                }
            }
            rules.addAll(r.parsed());
        }
        return engine.policy.withRules(rules);
    }

    /**
     * The workspace for one turn start's reads of the settings file, for a host without a {@link WorkspaceReadCache}:
     * the hooks' and the permission rules' reads of the same file are one tool-runner call. A read that threw is not
     * kept (the next reader tries again).
     */
    private static final class SettingsReadOnce implements WorkspaceToolExecutor {
        private final WorkspaceToolExecutor delegate;
        private final Map<String, ToolOutcome> reads = new HashMap<>();

        SettingsReadOnce(WorkspaceToolExecutor delegate) {
            this.delegate = delegate;
        }

        @Override
        public ToolOutcome execute(String tool, String callId, ObjectNode args, Target target) {
            if (!"read_file".equals(tool)) {
                return delegate.execute(tool, callId, args, target);
            }
            String key = target + " " + args;
            ToolOutcome kept = reads.get(key);
            if (kept != null) {
                return kept;
            }
            ToolOutcome out = delegate.execute(tool, callId, args, target);
            reads.put(key, out);
            return out;
        }
    }

    /** A hook failed outside a turn's loop (no turn id to report). */
    private void hookFailedOutsideTurn(String event, String hook, String message, boolean blocked) {
        events(turn == null ? null : turn.turnId, false).hookFailed(event, hook, message, blocked);
    }

    /**
     * The tools this agent may call here: those of its allowlist the engine holds, or, without an allowlist, the
     * engine's tools that list its role.
     */
    private Set<String> allowed() {
        Set<String> allowed = new LinkedHashSet<>();
        for (Tool t : engine.tools.all()) {
            if (agent.allowlist() == null ? t.roles().contains(agent.role()) : agent.allowlist().contains(t.name())) {
                allowed.add(t.name());
            }
        }
        return allowed;
    }

    /** The tools a subagent of this agent may call: those listing {@link AgentRole#SUBAGENT} that it may call. */
    private Set<String> subagentAllowed() {
        Set<String> allowed = allowed();
        allowed.removeIf(name -> !engine.tools.find(name).orElseThrow().roles().contains(AgentRole.SUBAGENT));
        return allowed;
    }

    // ---- subagents ----------------------------------------------------------------------------------------------

    /** Runs an ephemeral loop inside the parent's call: its own conversation, capped, never saved. */
    private SubagentRunner.SubagentResult runSubagent(String description, ToolContext parent) {
        Set<String> allowed = subagentAllowed();
        SubagentRunner refuse = (d, p) -> new SubagentRunner.SubagentResult("a subagent cannot spawn subagents", true, 0);
        int max = engine.settings.subagentMaxModelCalls();
        TurnContext ctx = context(AgentRole.SUBAGENT, parent.turnId(), parent.unattended(), LoopPolicy.EPHEMERAL,
                allowed, max, agentId() + "/sub", refuse, mcpTools(events(parent.turnId(), true)));
        LiveConversation sub = new LiveConversation(List.of(Message.user(description)), null);
        TurnState state = new TurnState(parent.turnId(), "subagent", parent.unattended(), description);
        TurnResult r = new TurnLoop(engine, this, ctx, state, sub, events(parent.turnId(), true), hooks,
                subPromptCache).run();
        if (r.reason() == StopReason.DETACHED) {
            // the parent's call stays unanswered: the next owner runs the subagent again from the start
            throw new ModelCaller.TurnEnd(StopReason.DETACHED, "The turn was handed over during a subagent.");
        }
        SubagentRunner.SubagentResult result = switch (r.reason()) {
            case COMPLETED -> new SubagentRunner.SubagentResult(r.text() == null || r.text().isBlank()
                    ? "(the subagent finished without a summary)" : r.text(), false, r.modelCalls());
            case MAX_MODEL_CALLS -> new SubagentRunner.SubagentResult("The subagent reached its limit of " + max
                    + " model calls without a final answer." + lastAssistantText(sub.messages)
                    .map(t -> " Its last note: " + t).orElse(""), true, r.modelCalls());
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

    /** Whether {@code w} (a {@link Budgets#TEAM_DAY} warning) is this session's first of its budget, limit and UTC day. */
    boolean firstDayWarning(Budgets.Breach w) {
        return dayWarnings.add(w.budget() + "@" + w.limit() + "@"
                + LocalDate.now(ZoneOffset.UTC));
    }
}
