package dev.cohort.lead.service;

import dev.cohort.core.engine.AgentEngine;
import dev.cohort.core.engine.EngineSettings;
import dev.cohort.core.engine.GatewayModelClient;
import dev.cohort.core.llm.LlmGateway;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.cron.CronTools;
import dev.cohort.core.tools.cron.SchedulerClient;
import dev.cohort.core.tools.skills.LoadSkillTool;
import dev.cohort.core.tools.subagent.SpawnSubagentTool;
import dev.cohort.core.tools.todo.TodoWriteTool;
import dev.cohort.core.tools.workspace.BashTool;
import dev.cohort.core.tools.workspace.CancelBackgroundTool;
import dev.cohort.core.tools.workspace.CheckBackgroundTool;
import dev.cohort.core.tools.workspace.EditFileTool;
import dev.cohort.core.tools.workspace.GlobTool;
import dev.cohort.core.tools.workspace.GrepTool;
import dev.cohort.core.tools.workspace.ReadFileTool;
import dev.cohort.core.tools.workspace.ToolRunnerWorkspaceExecutor;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import dev.cohort.core.toolrunner.ToolRunnerClient;
import dev.cohort.core.tools.workspace.WriteFileTool;
import dev.cohort.lead.config.LeadConfig;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The engine every lead of this replica shares: the model through the core gateway, the lead's tools (workspace
 * tools on the tool runner, todo, skills, subagents, cron tools on the scheduler, and any {@link LeadToolProvider}
 * such as the task board), events into the team's event log, approvals through {@link ApprovalService}, the built-in
 * hooks (CDI beans implementing {@code Hook}) and the workspace's {@code .cohort/settings.json} hooks.
 */
@ApplicationScoped
public class LeadEngine {

    /** Contributes more lead tools (the task board, memory, team tools); gathered at start-up. */
    public interface LeadToolProvider {
        List<Tool> tools();
    }

    @Inject
    LlmGateway gateway;

    @Inject
    LeadConfig config;

    /** {@code cohort.engine.*}: the engine's and the memory's tunables. */
    @Inject
    dev.cohort.lead.config.EngineConfig engineConfig;

    @Inject
    EventService events;

    @Inject
    ApprovalService approvals;

    @Inject
    @Any
    Instance<LeadToolProvider> providers;

    /** Built-in hooks: every CDI bean implementing {@link dev.cohort.core.engine.hooks.Hook}, run by priority. */
    @Inject
    @Any
    Instance<dev.cohort.core.engine.hooks.Hook> builtInHooks;

    @ConfigProperty(name = "cohort.api.token")
    Optional<String> apiToken;

    @Inject
    io.agroal.api.AgroalDataSource ds;

    @Inject
    dev.cohort.lead.persistence.PgTranscriptStore transcripts;

    @Inject
    dev.cohort.lead.persistence.PromptRepository prompts;

    /** Memory extraction and consolidation run here, off the turns' threads (s09). */
    private final java.util.concurrent.ExecutorService memoryWork = java.util.concurrent.Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("lead-memory-", 0).factory());

    private AgentEngine engine;
    private WorkspaceToolExecutor workspace;
    private ToolRunnerClient toolRunner;

    @PostConstruct
    void init() {
        java.util.function.Function<String, dev.cohort.core.memory.MemoryStore> stores =
                team -> new dev.cohort.lead.persistence.PgMemoryStore(ds, team);
        List<Tool> tools = new ArrayList<>(List.of(new BashTool(), new ReadFileTool(), new WriteFileTool(), new EditFileTool(),
                new GlobTool(), new GrepTool(), new CheckBackgroundTool(), new CancelBackgroundTool(), new TodoWriteTool(), new SpawnSubagentTool(), new LoadSkillTool(),
                new dev.cohort.core.tools.compact.CompactTool(), new dev.cohort.core.tools.memory.MemoryWriteTool(stores),
                new dev.cohort.core.tools.memory.MemoryDeleteTool(stores)));
        tools.addAll(CronTools.all(new SchedulerClient(URI.create(config.schedulerUrl()), apiToken.filter(s -> !s.isBlank()),
                Duration.ofSeconds(30))));
        for (LeadToolProvider p : providers) {
            tools.addAll(p.tools());
        }
        // every model call (turns, compaction, memory) goes through the one gateway bean: one client per configured
        // model, with error headers kept so Retry-After is honoured (s11); its primary and fallback set the engine's
        GatewayModelClient model = new GatewayModelClient(gateway);
        EngineSettings settings = model.applyTo(dev.cohort.lead.config.EngineConfig.toSettings(engineConfig, config));
        var memory = dev.cohort.core.memory.MemoryManager.builder().stores(stores).model(model).executor(memoryWork)
                .settings(dev.cohort.lead.config.EngineConfig.toMemorySettings(engineConfig)).events(this::record).build();
        engine = AgentEngine.builder().settings(settings).model(model).tools(ToolRegistry.of(tools))
                .events(this::record).approvals(approvals).memory(memory).transcripts(transcripts)
                .hooks(builtInHooks.stream().toList())
                .workspaceHookSettings(dev.cohort.core.engine.hooks.HookSettings.WORKSPACE_FILE).build();
        toolRunner = new ToolRunnerClient(config.toolRunnerUrl(),
                config.toolRunnerToken().filter(s -> !s.isBlank()).orElse(null), config.toolRunnerTimeout());
        workspace = new ToolRunnerWorkspaceExecutor(toolRunner);
    }

    /** The prompt each team's running turn is working on, to label its events (clients follow a prompt by id). */
    private final java.util.concurrent.ConcurrentHashMap<String, String> currentPrompt = new java.util.concurrent.ConcurrentHashMap<>();

    void label(String team, String promptId) {
        if (promptId == null) {
            currentPrompt.remove(team);
        } else {
            currentPrompt.put(team, promptId);
        }
    }

    private void record(dev.cohort.core.protocol.Event e) {
        String p = currentPrompt.get(e.team());
        if (e.data() instanceof com.fasterxml.jackson.databind.node.ObjectNode o) {
            if (p != null && !o.has("promptId")) {
                o.put("promptId", p);
            }
            // clients read one field to know whether the turn succeeded
            if (e.type() == dev.cohort.core.protocol.EventType.TURN_COMPLETED && !o.has("status")) {
                o.put("status", "completed".equals(o.path("reason").asText()) ? "completed" : "failed");
            }
            // a prompt injected into a running turn is answered by that turn: `cohort send` finds its end here
            if (e.type() == dev.cohort.core.protocol.EventType.TURN_COMPLETED && o.hasNonNull("turnId") && !o.has("promptIds")) {
                try {
                    List<String> ids = prompts.idsOfTurn(e.team(), o.get("turnId").asText());
                    ids.forEach(o.putArray("promptIds")::add);
                } catch (RuntimeException ex) {
                    // the end of the turn matters more than the field: it is published without it
                    io.quarkus.logging.Log.warnf("team=%s agent=%s turn=%s prompts of the turn not read: %s", e.team(), e.agent(),
                            o.get("turnId").asText(), ex.toString());
                }
            }
        }
        events.record(e);
    }

    @jakarta.annotation.PreDestroy
    void stop() {
        memoryWork.shutdown();
    }

    public AgentEngine engine() {
        return engine;
    }

    public WorkspaceToolExecutor workspace() {
        return workspace;
    }

    /** The client of the tool runner the tools use (also for preparing a team's own workspace). */
    public ToolRunnerClient toolRunner() {
        return toolRunner;
    }
}
