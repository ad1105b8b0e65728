package dev.cohort.core.engine;

import dev.cohort.core.engine.hooks.Hook;
import dev.cohort.core.engine.hooks.Hooks;
import dev.cohort.core.engine.permission.PermissionPolicy;
import dev.cohort.core.engine.permission.WorkspacePermissionSettings;
import dev.cohort.core.tools.mcp.McpToolbox;
import dev.cohort.core.mcp.WorkspaceMcpSettings;
import dev.cohort.core.engine.prompt.MemoryProvider;
import dev.cohort.core.retry.Sleeper;
import dev.cohort.core.tools.skills.Skill;
import dev.cohort.core.tools.skills.SkillLibrary;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.trace.Tracing;
import java.util.Collection;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The agent engine: what every agent of a service shares (model, tools, hooks, policy, settings, event sink,
 * approvals). {@link #open} gives an {@link AgentSession} per agent. Thread-safe; knows nothing of Kafka or HTTP.
 */
public final class AgentEngine {
    final EngineSettings settings;
    final ModelClient model;
    final ToolRegistry tools;
    final EventSink events;
    final ApprovalGateway approvals;
    final Hooks hooks;
    final PermissionPolicy policy;
    final MemoryProvider memory;
    final List<Skill> bundledSkills;
    final TranscriptStore transcripts;
    final Sleeper sleeper;
    final DoubleSupplier random;
    final EngineMetrics metrics;
    /** The workspace file with command hooks read at every turn start, or {@code null}. */
    final String hookSettingsFile;
    /** The tools of the teams' MCP servers; {@code null}: none. */
    final McpToolbox mcp;
    /** The {@code mcpServers} of the workspace settings files. */
    final WorkspaceMcpSettings mcpSettings;
    /** The permission rules of that same file, with each team's last good ones; {@code null} without a file. */
    final WorkspacePermissionSettings permissionSettings;
    final Tracing tracing;

    private AgentEngine(Builder b) {
        this.settings = b.settings;
        this.model = Objects.requireNonNull(b.model, "model");
        this.tools = Objects.requireNonNull(b.tools, "tools");
        this.events = b.events;
        this.approvals = b.approvals;
        this.hooks = b.hooks;
        this.policy = b.policy;
        this.memory = b.memory;
        this.bundledSkills = b.bundledSkills == null ? SkillLibrary.loadBundled(AgentEngine.class.getClassLoader())
                : List.copyOf(b.bundledSkills);
        this.transcripts = b.transcripts;
        this.sleeper = b.sleeper;
        this.random = b.random;
        this.metrics = b.metrics;
        this.hookSettingsFile = b.hookSettingsFile;
        this.permissionSettings = b.hookSettingsFile == null ? null : new WorkspacePermissionSettings(b.hookSettingsFile);
        this.mcp = b.mcp;
        this.mcpSettings = new WorkspaceMcpSettings();
        this.tracing = b.tracing;
    }

    public static Builder builder() {
        return new Builder();
    }

    public EngineSettings settings() {
        return settings;
    }

    public ToolRegistry tools() {
        return tools;
    }

    /** The model client every call of this engine goes through. */
    public ModelClient model() {
        return model;
    }

    /** The spans of turns, model calls and tool calls ({@link Tracing#NOOP} by default). */
    public Tracing tracing() {
        return tracing;
    }

    /**
     * The permission rules of the workspace settings file as the engine's turns read them (each team's last good
     * ones kept when the file breaks); empty when the engine reads no workspace settings file.
     */
    public Optional<WorkspacePermissionSettings> workspacePermissions() {
        return Optional.ofNullable(permissionSettings);
    }

    /** The reader of the workspace settings files' {@code mcpServers}, with each team's last good servers. */
    public WorkspaceMcpSettings workspaceMcp() {
        return mcpSettings;
    }

    /** The transcript store (where compaction keeps full texts). */
    public TranscriptStore transcripts() {
        return transcripts;
    }

    /** A session for one agent, continuing from {@code state} ({@code null} = a new agent). */
    public AgentSession open(AgentContext agent, AgentState state) {
        return new AgentSession(this, agent, state == null ? AgentState.empty() : state);
    }

    /** Configures an {@link AgentEngine}. */
    public static final class Builder {
        private EngineSettings settings = EngineSettings.defaults();
        private ModelClient model;
        private ToolRegistry tools;
        private EventSink events = EventSink.NONE;
        private ApprovalGateway approvals = ApprovalGateway.DENY_ALL;
        private Hooks hooks = Hooks.NONE;
        private PermissionPolicy policy = PermissionPolicy.defaults();
        private MemoryProvider memory = MemoryProvider.NONE;
        private List<Skill> bundledSkills;
        private TranscriptStore transcripts = new InMemoryTranscriptStore();
        private Sleeper sleeper = Sleeper.REAL;
        private DoubleSupplier random = () -> ThreadLocalRandom.current().nextDouble();
        private String hookSettingsFile;
        private EngineMetrics metrics = EngineMetrics.NONE;
        private Tracing tracing = Tracing.NOOP;
        private McpToolbox mcp;

        /**
         * Where the tools of the teams' MCP servers come from (the tool runner); {@code null} (the default): no MCP
         * servers, whatever the teams configure.
         */
        public Builder mcp(McpToolbox m) {
            this.mcp = m;
            return this;
        }

        public Builder settings(EngineSettings s) {
            this.settings = s;
            return this;
        }

        public Builder model(ModelClient m) {
            this.model = m;
            return this;
        }

        public Builder tools(ToolRegistry t) {
            this.tools = t;
            return this;
        }

        public Builder events(EventSink e) {
            this.events = e;
            return this;
        }

        public Builder approvals(ApprovalGateway a) {
            this.approvals = a;
            return this;
        }

        public Builder hooks(Collection<? extends Hook> h) {
            this.hooks = new Hooks(h);
            return this;
        }

        /**
         * Reads command hooks and permission rules from this workspace file (Claude Code's settings format, {@link
         * dev.cohort.core.engine.hooks.HookSettings}, {@link WorkspacePermissionSettings}) through the workspace
         * executor at the start of every turn, e.g. {@code .cohort/settings.json}; {@code null} (the default) = no
         * workspace settings. A missing file means none; an unreadable or invalid one is an {@code error} event and
         * the turn runs without its hooks and with its last good permission rules.
         */
        public Builder workspaceHookSettings(String path) {
            this.hookSettingsFile = path;
            return this;
        }

        public Builder policy(PermissionPolicy p) {
            this.policy = p;
            return this;
        }

        public Builder memory(MemoryProvider m) {
            this.memory = m;
            return this;
        }

        /** The bundled skills; by default those on the classpath under {@code skills/}. */
        public Builder bundledSkills(List<Skill> s) {
            this.bundledSkills = s;
            return this;
        }

        /**
         * Where transcripts and oversized tool results go before compaction drops them (default: in memory, which
         * a service replaces with a persistent store).
         */
        public Builder transcripts(TranscriptStore t) {
            this.transcripts = Objects.requireNonNull(t, "transcripts");
            return this;
        }

        /** How the engine waits between model retries (tests: a recording sleeper that does not sleep). */
        public Builder sleeper(Sleeper s) {
            this.sleeper = Objects.requireNonNull(s, "sleeper");
            return this;
        }

        /** The jitter source for retry delays, values in [0, 1) (tests: a constant). */
        public Builder random(DoubleSupplier r) {
            this.random = Objects.requireNonNull(r, "random");
            return this;
        }

        /** Where model calls, tool calls and turn ends are counted (default: nowhere). */
        public Builder metrics(EngineMetrics m) {
            this.metrics = Objects.requireNonNull(m, "metrics");
            return this;
        }

        /** Traces turns, model calls and tool calls (default: {@link Tracing#NOOP}). */
        public Builder tracing(Tracing t) {
            this.tracing = Objects.requireNonNull(t, "tracing");
            return this;
        }

        public AgentEngine build() {
            return new AgentEngine(this);
        }
    }
}
