package dev.cohort.teammate.engine;

import dev.cohort.core.engine.AgentEngine;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.workspace.WorkspaceReadCache;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import dev.cohort.host.engine.EngineAssembly;
import dev.cohort.host.engine.ToolRunnerWorkspace;
import dev.cohort.host.engine.WorkspaceTools;
import dev.cohort.host.persistence.PgTranscriptStore;
import dev.cohort.platform.kafka.KafkaEventSink;
import dev.cohort.teammate.config.TeammateConfig;
import dev.cohort.teammate.lifecycle.TeammateClock;
import io.agroal.api.AgroalDataSource;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * The engine every teammate of this replica shares, built by agent-host's {@link EngineAssembly} for the
 * {@code TEAMMATE} role: the workspace, todo and skill tools ({@code SharedToolProvider}) and the team tools
 * ({@link TeammateTeamToolProvider}); at most {@code cohort.teammate.work-max-rounds} model calls per turn; events on
 * {@code cohort.events} ({@link KafkaEventSink}, sequenced by the lead); asks answered by {@link TeammateApprovals};
 * transcripts in {@code teammate.transcripts}; no memory extraction. Tools run on the tool runner at
 * {@code cohort.teammate.tool-runner-url}, through a {@link WorkspaceReadCache}: what every turn start reads (the
 * workspace skills, {@code .cohort/settings.json}) is read once per team and cwd for all the teammates of this replica,
 * again after any of their calls that may change files, a {@code background_done} of the team, or
 * {@code cohort.teammate.workspace-cache-ttl}.
 */
@ApplicationScoped
public class TeammateEngine {

    @Inject
    EngineAssembly assembly;

    @Inject
    TeammateConfig config;

    @Inject
    KafkaEventSink events;

    @Inject
    TeammateApprovals approvals;

    @Inject
    AgroalDataSource ds;

    @Inject
    TeammateClock clock;

    private AgentEngine engine;
    private WorkspaceReadCache workspace;

    @PostConstruct
    void init() {
        if (config.workMaxRounds() < 1) {
            throw new IllegalArgumentException("cohort.teammate.work-max-rounds must be at least 1, was " + config.workMaxRounds());
        }
        ToolRunnerWorkspace runner = assembly.toolRunner(config.toolRunnerUrl(), config.toolRunnerToken(),
                config.toolRunnerTimeout());
        WorkspaceTools tools = assembly.workspaceTools(runner);
        tools.prefetch(); // the start does not wait for the runner
        engine = assembly.engine(AgentRole.TEAMMATE).workspace(tools).events(events).approvals(approvals.gateway())
                .transcripts(new PgTranscriptStore(ds, "teammate"))
                .adjustSettings(s -> s.withMaxModelCallsPerTurn(config.workMaxRounds())).build();
        workspace = new WorkspaceReadCache(runner.executor(), tools::changesNothing, config.workspaceCacheTtl(),
                clock);
    }

    public AgentEngine engine() {
        return engine;
    }

    public WorkspaceToolExecutor workspace() {
        return workspace;
    }

    /** The turn-start reads kept per team (invalidated by the team's changes). */
    public WorkspaceReadCache workspaceReads() {
        return workspace;
    }
}
