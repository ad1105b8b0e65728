package dev.cohort.teammate.protocols;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.host.engine.ToolProvider;
import dev.cohort.host.messaging.AgentMessagePublisher;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Set;

/** A teammate's protocol tool, {@code submit_plan}; its plan gate is {@link TeammateProtocols#planGate}. */
@ApplicationScoped
public class TeammateProtocolToolProvider implements ToolProvider {

    @Inject
    AgentMessagePublisher publisher;

    @Override
    public Set<AgentRole> roles() {
        return Set.of(AgentRole.TEAMMATE);
    }

    @Override
    public List<Tool> tools() {
        return List.of(new SubmitPlanTool(publisher));
    }

    @Override
    public int order() {
        return 60; // after the team tools (50)
    }
}
