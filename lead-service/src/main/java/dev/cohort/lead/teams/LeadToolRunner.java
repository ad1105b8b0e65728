package dev.cohort.lead.teams;

import dev.cohort.core.toolrunner.ToolRunnerClient;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import dev.cohort.host.engine.EngineAssembly;
import dev.cohort.host.engine.ToolRunnerWorkspace;
import dev.cohort.lead.config.LeadConfig;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * The lead's connection to the tool runner at {@code cohort.lead.tool-runner-url}/{@code -token}/{@code -timeout}: the
 * executor the lead's workspace tools call, and the client that prepares a new team's own workspace.
 */
@ApplicationScoped
public class LeadToolRunner {

    @Inject
    EngineAssembly assembly;

    @Inject
    LeadConfig config;

    private ToolRunnerClient client;
    private WorkspaceToolExecutor executor;

    @PostConstruct
    void init() {
        ToolRunnerWorkspace runner = assembly.toolRunner(config.toolRunnerUrl(), config.toolRunnerToken(),
                config.toolRunnerTimeout());
        client = runner.client();
        executor = runner.executor();
    }

    /** The client (also for preparing a team's own workspace). */
    public ToolRunnerClient client() {
        return client;
    }

    /** What the workspace tools call. */
    public WorkspaceToolExecutor executor() {
        return executor;
    }
}
