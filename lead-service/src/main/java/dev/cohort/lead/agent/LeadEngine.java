package dev.cohort.lead.agent;

import com.fasterxml.jackson.databind.node.ObjectNode;
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
import dev.cohort.lead.prompts.PromptRepository;
import dev.cohort.lead.teams.LeadToolRunner;
import io.agroal.api.AgroalDataSource;
import io.quarkus.logging.Log;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.ConcurrentHashMap;
import java.util.List;

/**
 * The engine every lead of this replica shares, built by the shared {@link EngineAssembly} (agent-host) for the
 * {@code LEAD} role: the model through the one gateway, the tools of every {@code ToolProvider} bean serving the lead
 * (the shared workspace/todo/skill tools and {@code spawn_subagent}/{@code compact} from agent-host; memory, cron and
 * the task board from here), the built-in hooks and the workspace's {@code .cohort/settings.json} hooks. What is the
 * lead's stays here: events go into the team's event log labelled with the prompt the turn works on (and
 * {@code status}/{@code promptIds} on {@code turn_completed}), approvals through {@link ApprovalService}, transcripts
 * in {@code lead.transcripts}, memories in {@code lead.memories}, and the tool runner through {@link LeadToolRunner}.
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
    PromptRepository prompts;

    @Inject
    LeadToolRunner runner;

    private AgentEngine engine;

    @PostConstruct
    void init() {
        engine = assembly.engine(AgentRole.LEAD).workspace(runner.tools()).events(this::record).approvals(approvals)
                .transcripts(new PgTranscriptStore(ds, "lead")).memory(memories.stores()).build();
    }

    /** The prompt each team's running turn is working on, to label its events (clients follow a prompt by id). */
    private final ConcurrentHashMap<String, String> currentPrompt = new ConcurrentHashMap<>();

    void label(String team, String promptId) {
        if (promptId == null) {
            currentPrompt.remove(team);
        } else {
            currentPrompt.put(team, promptId);
        }
    }

    private void record(Event e) {
        if (e.type() == EventType.TOOL_CALL_STARTED) {
            // stored while the call runs: the team's next event or step save waits for it (EventService#recordAhead)
            events.recordAhead(label(e));
        } else {
            events.record(label(e));
        }
    }

    /** The lead's fields on an event of its engine (the prompt it answers; a turn end's prompts). */
    Event label(Event e) {
        String p = currentPrompt.get(e.team());
        if (e.data() instanceof ObjectNode o) {
            if (p != null && !o.has("promptId")) {
                o.put("promptId", p);
            }
            // a prompt injected into a running turn is answered by that turn: `cohort send` finds its end here
            if (e.type() == EventType.TURN_COMPLETED && o.hasNonNull("turnId") && !o.has("promptIds")) {
                try {
                    List<String> ids = prompts.idsOfTurn(e.team(), o.get("turnId").asText());
                    ids.forEach(o.putArray("promptIds")::add);
                } catch (RuntimeException ex) {
                    // the end of the turn matters more than the field: it is published without it
                    Log.warnf("team=%s agent=%s turn=%s prompts of the turn not read: %s", e.team(), e.agent(),
                            o.get("turnId").asText(), ex.toString());
                }
            }
        }
        return e;
    }

    public AgentEngine engine() {
        return engine;
    }

    /** What the lead's workspace tools call: the tool runner ({@link LeadToolRunner}). */
    public WorkspaceToolExecutor workspace() {
        return runner.executor();
    }
}
