package dev.cohort.lead.teams;

import dev.cohort.core.toolrunner.ToolRunnerClient;
import dev.cohort.core.tools.workspace.WorkspaceCatalogue;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import dev.cohort.host.engine.EngineAssembly;
import dev.cohort.host.engine.ToolRunnerWorkspace;
import dev.cohort.lead.config.LeadConfig;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
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

    @PostConstruct
    void init() {
        runner = assembly.toolRunner(config.toolRunnerUrl(), config.toolRunnerToken(), config.toolRunnerTimeout());
    }

    /** The runner's workspace tools, waited for while it is not up ({@code cohort.engine.tool-runner-retry.*}). */
    public WorkspaceCatalogue catalogue() {
        return runner.catalogue(assembly.catalogueWait());
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
