package dev.cohort.host.engine;

import dev.cohort.core.engine.AgentEngine;
import dev.cohort.core.engine.ApprovalGateway;
import dev.cohort.core.engine.EngineSettings;
import dev.cohort.core.engine.EventSink;
import dev.cohort.core.engine.hooks.Hook;
import dev.cohort.core.engine.hooks.HookSettings;
import dev.cohort.core.engine.TranscriptStore;
import dev.cohort.core.llm.GatewayModelClient;
import dev.cohort.core.tools.mcp.McpToolbox;
import dev.cohort.core.tools.mcp.ToolRunnerMcpGateway;
import dev.cohort.core.memory.MemoryManager;
import dev.cohort.core.memory.MemoryStore;
import dev.cohort.core.toolrunner.ToolRunnerClient;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolNames;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.workspace.WorkspaceCatalogue;
import dev.cohort.core.trace.Tracing;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Builds a service's {@link AgentEngine} from configuration and beans, the same way for the lead and the teammates:
 * <ul>
 * <li>settings from {@code cohort.engine.*} ({@link EngineConfig}, with the service's {@link EngineConfig.DeprecatedAliases}
 * bean if it has one), the model and fallback model set by the gateway;</li>
 * <li>the model: the one {@link GatewayModelClient} over the replica's {@code LlmGateway} ({@link ModelProducer});</li>
 * <li>the tools: the tool runner's workspace tools for the role ({@link Builder#workspace}), then those of every
 * {@link ToolProvider} bean serving the role, with the providers' {@link ToolProvider#wraps} applied
 * ({@link #toolsFor});</li>
 * <li>the built-in hooks: every CDI bean implementing {@link Hook}, plus the workspace's
 * {@code .cohort/settings.json} command hooks;</li>
 * <li>the teams' MCP servers' tools, listed and called through the tool runner that serves the workspace tools
 * ({@link Builder#workspace(WorkspaceTools)}), unless {@code cohort.engine.mcp.enabled=false};</li>
 * <li>the engine's metrics on the service's registry ({@link MicrometerEngineMetrics});</li>
 * <li>what the service passes: its event sink, approvals, transcripts and, if it keeps memories, its memory stores.
 * Memory extraction runs on one {@link BoundedExecutor} per replica ({@code cohort.engine.memory.extraction-*}).</li>
 * </ul>
 * {@link #toolRunner} connects to the tool runner with the service's URL, token and timeout and the shared retry
 * policy ({@code cohort.engine.tool-runner-retry.*}).
 */
@ApplicationScoped
public class EngineAssembly {

    @Inject
    EngineConfig config;

    @Inject
    GatewayModelClient model;

    @Inject
    @Any
    Instance<ToolProvider> providers;

    @Inject
    @Any
    Instance<Hook> hooks;

    @Inject
    Instance<EngineConfig.DeprecatedAliases> aliases;

    @Inject
    MicrometerEngineMetrics metrics;
    @Inject
    Tracing tracing;

    private BoundedExecutor memoryWork;

    /** Starts an engine for agents of {@code role}. */
    public Builder engine(AgentRole role) {
        return new Builder(Objects.requireNonNull(role, "role"));
    }

    /** The workspace tools served by {@code runner}, waited for as {@code cohort.engine.tool-runner-retry.*} says. */
    public WorkspaceTools workspaceTools(ToolRunnerWorkspace runner) {
        return new WorkspaceTools(runner, config.toolRunnerRetry().catalogueWait());
    }

    /** Connects to the tool runner at {@code url} with the configured retry policy. */
    public ToolRunnerWorkspace toolRunner(String url, Optional<String> token, Duration timeout) {
        return ToolRunnerWorkspace.connect(url, token, timeout, EngineConfig.toToolRunnerRetry(config));
    }

    /** The engine's settings: {@code cohort.engine.*} with the service's aliases, the gateway's models. */
    public EngineSettings settings() {
        EngineConfig.DeprecatedAliases legacy = aliases.isResolvable() ? aliases.get() : EngineConfig.DeprecatedAliases.NONE;
        return model.applyTo(EngineConfig.toSettings(config, legacy));
    }

    /**
     * The tools of an engine for {@code role}: the {@code workspace} tools first (the tool runner's catalogue, in its
     * order), then the providers' serving the role, providers in {@link ToolProvider#order()} (ties by class name, so
     * the order does not depend on bean discovery), each provider's tools in its own order; each kept only when it
     * lists the role. A workspace tool a provider {@linkplain ToolProvider#wraps wraps} is replaced by its wrapper.
     *
     * @throws IllegalStateException when a provider wraps a tool the catalogue does not have for the role
     */
    public static List<Tool> toolsFor(AgentRole role, List<Tool> workspace, Iterable<? extends ToolProvider> providers) {
        List<ToolProvider> serving = new ArrayList<>();
        for (ToolProvider p : providers) {
            if (p.roles().contains(role)) {
                serving.add(p);
            }
        }
        serving.sort(Comparator.comparingInt(ToolProvider::order).thenComparing(p -> p.getClass().getName()));
        Map<String, UnaryOperator<Tool>> wraps = new HashMap<>();
        for (ToolProvider p : serving) {
            wraps.putAll(p.wraps());
        }
        List<Tool> tools = new ArrayList<>();
        for (Tool t : workspace) {
            if (t.roles().contains(role)) {
                UnaryOperator<Tool> wrap = wraps.remove(t.name());
                tools.add(wrap == null ? t : wrap.apply(t));
            }
        }
        if (!wraps.isEmpty()) {
            throw new IllegalStateException("the " + role + " engine's providers extend workspace tools the tool "
                    + "runner's catalogue does not give that role: " + new TreeSet<>(wraps.keySet()));
        }
        for (ToolProvider p : serving) {
            p.tools().stream().filter(t -> t.roles().contains(role)).forEach(tools::add);
        }
        return tools;
    }

    /**
     * Makes the names of the tools the providers serving {@code role} give known to the permission rules at once
     * ({@link ToolNames}), before a deferred registry is first used: a team's rules naming them are accepted from the
     * service's start. The workspace tools' names are added when the catalogue is read.
     */
    static void declare(AgentRole role, Iterable<? extends ToolProvider> providers) {
        for (ToolProvider p : providers) {
            if (p.roles().contains(role)) {
                ToolNames.add(p.tools().stream().map(Tool::name).toList());
            }
        }
    }

    /** The replica's memory executor, made on first use. */
    synchronized BoundedExecutor memoryWork() {
        if (memoryWork == null) {
            memoryWork = new BoundedExecutor("memory", EngineConfig.toMemoryWork(config));
        }
        return memoryWork;
    }

    @PreDestroy
    synchronized void stop() {
        if (memoryWork != null) {
            memoryWork.close();
        }
    }

    /** The parts a service passes; {@link #build} does the rest. */
    public final class Builder {
        private final AgentRole role;
        private EventSink events = EventSink.NONE;
        private ApprovalGateway approvals;
        private TranscriptStore transcripts;
        private Function<String, MemoryStore> memoryStores;
        private UnaryOperator<EngineSettings> adjust = UnaryOperator.identity();
        private Supplier<WorkspaceCatalogue> workspace;
        private ToolRunnerClient mcpRunner;

        private Builder(AgentRole role) {
            this.role = role;
        }

        /** Where the engine's events go (the lead: its event log, with its own decoration). */
        public Builder events(EventSink sink) {
            this.events = Objects.requireNonNull(sink, "events");
            return this;
        }

        public Builder approvals(ApprovalGateway gateway) {
            this.approvals = gateway;
            return this;
        }

        /**
         * The tool runner's workspace tools ({@link WorkspaceTools}); default: none. They are asked for at the engine's
         * first use of its tools, not when it is built, so a service starts without waiting for the runner.
         */
        public Builder workspace(Supplier<WorkspaceCatalogue> catalogue) {
            this.workspace = Objects.requireNonNull(catalogue, "catalogue");
            return this;
        }

        /**
         * The tool runner's workspace tools ({@link #workspace(Supplier)}), and the same runner for the teams' MCP
         * servers: it lists their tools at a turn's start and runs their calls (a local server in the team's sandbox),
         * unless {@code cohort.engine.mcp.enabled=false}.
         */
        public Builder workspace(WorkspaceTools tools) {
            workspace((Supplier<WorkspaceCatalogue>) tools);
            this.mcpRunner = tools.runner().client();
            return this;
        }

        /** The persistent transcripts (default: the engine's in-memory store). */
        public Builder transcripts(TranscriptStore store) {
            this.transcripts = Objects.requireNonNull(store, "transcripts");
            return this;
        }

        /** The memory store of each team: memories are selected, extracted (bounded, in the background) and kept. */
        public Builder memory(Function<String, MemoryStore> stores) {
            this.memoryStores = Objects.requireNonNull(stores, "stores");
            return this;
        }

        /**
         * Adjusts the settings from {@code cohort.engine.*} for this engine only (the teammates' per-turn model-call
         * cap is {@code cohort.teammate.work-max-rounds}).
         */
        public Builder adjustSettings(UnaryOperator<EngineSettings> adjustment) {
            this.adjust = Objects.requireNonNull(adjustment, "adjustment");
            return this;
        }

        private ToolRegistry tools() {
            List<ToolProvider> all = providers.stream().toList();
            if (workspace == null) {
                return ToolRegistry.of(toolsFor(role, List.of(), all));
            }
            Supplier<WorkspaceCatalogue> catalogue = workspace;
            declare(role, all);
            return ToolRegistry.deferred(() -> toolsFor(role, catalogue.get().all(), all));
        }

        public AgentEngine build() {
            AgentEngine.Builder b = AgentEngine.builder().settings(adjust.apply(EngineAssembly.this.settings())).model(model)
                    .tools(tools()).events(events).approvals(approvals)
                    .hooks(hooks.stream().toList()).workspaceHookSettings(HookSettings.WORKSPACE_FILE).metrics(metrics)
                    .tracing(tracing);
            if (transcripts != null) {
                b.transcripts(transcripts);
            }
            if (mcpRunner != null && config.mcp().enabled()) {
                b.mcp(new McpToolbox(new ToolRunnerMcpGateway(mcpRunner)));
            }
            if (memoryStores != null) {
                b.memory(MemoryManager.builder().stores(memoryStores).model(model).executor(memoryWork())
                        .settings(EngineConfig.toMemorySettings(config)).events(events).build());
            }
            return b.build();
        }
    }
}
