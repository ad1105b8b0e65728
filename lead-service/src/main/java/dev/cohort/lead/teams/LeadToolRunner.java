package dev.cohort.lead.teams;

import dev.cohort.core.toolrunner.ToolRunnerClient;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import dev.cohort.host.engine.EngineAssembly;
import dev.cohort.host.engine.ToolRunnerWorkspace;
import dev.cohort.host.engine.WorkspaceTools;
import dev.cohort.lead.config.LeadConfig;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

/**
 * The lead's connection to the tool runner at {@code cohort.lead.tool-runner-url}/{@code -token}/{@code -timeout}: its
 * catalogue of workspace tools, the executor those tools call, and the client that prepares a new team's own
 * workspace.
 */
@ApplicationScoped
public class LeadToolRunner {

    @Inject
    EngineAssembly assembly;

    @Inject
    LeadConfig config;

    private ToolRunnerWorkspace runner;
    private WorkspaceTools tools;

    @PostConstruct
    void init() {
        runner = assembly.toolRunner(config.toolRunnerUrl(), config.toolRunnerToken(), config.toolRunnerTimeout());
        tools = assembly.workspaceTools(runner);
    }

    /** The start does not wait for the runner: its catalogue is read in the background. */
    void prefetch(@Observes StartupEvent ev) {
        tools.prefetch();
    }

    /** The runner's workspace tools, read once (the engine's first use waits for them). */
    public WorkspaceTools tools() {
        return tools;
    }

    /** The client (also for preparing a team's own workspace). */
    public ToolRunnerClient client() {
        return runner.client();
    }

    /** What the workspace tools call. */
    public WorkspaceToolExecutor executor() {
        return runner.executor();
    }
}
