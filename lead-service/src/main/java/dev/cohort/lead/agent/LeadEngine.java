package dev.cohort.lead.agent;

import dev.cohort.core.engine.AgentEngine;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import dev.cohort.host.engine.EngineAssembly;
import dev.cohort.host.persistence.PgTranscriptStore;
import dev.cohort.lead.approvals.ApprovalService;
import dev.cohort.lead.events.EventService;
import dev.cohort.lead.memory.LeadMemoryToolProvider;
import dev.cohort.lead.teams.LeadToolRunner;
import io.agroal.api.AgroalDataSource;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * The engine every lead of this replica shares, built by the shared {@link EngineAssembly} (agent-host) for the
 * {@code LEAD} role: the model through the one gateway, the tool runner's workspace tools ({@link LeadToolRunner}), the
 * tools of every {@code ToolProvider} bean serving the lead ({@code todo_write}, {@code load_skill},
 * {@code spawn_subagent}, {@code compact} from agent-host; memory, cron and the task board from here), the built-in
 * hooks and the workspace's {@code .cohort/settings.json} hooks. What is the lead's stays here: events go into the
 * team's event log as the engine made them (each carries the prompt its turn answers), approvals through
 * {@link ApprovalService}, transcripts in {@code lead.transcripts}, memories in {@code lead.memories}.
 */
@ApplicationScoped
public class LeadEngine {

    @Inject
    EngineAssembly assembly;

    @Inject
    EventService events;

    @Inject
    ApprovalService approvals;

    @Inject
    LeadMemoryToolProvider memories;

    @Inject
    AgroalDataSource ds;

    @Inject
    LeadToolRunner runner;

    private AgentEngine engine;

    @PostConstruct
    void init() {
        engine = assembly.engine(AgentRole.LEAD).workspace(runner.tools()).events(this::record).approvals(approvals)
                .transcripts(new PgTranscriptStore(ds, "lead")).memory(memories.stores()).build();
    }

    private void record(Event e) {
        if (e.type() == EventType.TOOL_CALL_STARTED) {
            // stored while the call runs: the team's next event or step save waits for it (EventService#recordAhead)
            events.recordAhead(e);
        } else {
            events.record(e);
        }
    }

    public AgentEngine engine() {
        return engine;
    }

    /** What the lead's workspace tools call: the tool runner ({@link LeadToolRunner}). */
    public WorkspaceToolExecutor workspace() {
        return runner.executor();
    }
}
