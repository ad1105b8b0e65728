package dev.cohort.teammate.protocols;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.host.engine.RoleTools;
import dev.cohort.platform.kafka.AgentMessagePublisher;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;

/** A teammate's protocol tool, {@code submit_plan}; its plan gate is {@link TeammateProtocols#planGate}. */
@ApplicationScoped
public class TeammateProtocolToolProvider extends RoleTools {

    @Inject
    AgentMessagePublisher publisher;

    TeammateProtocolToolProvider() {
        super(60, AgentRole.TEAMMATE); // after the team tools (50)
    }

    @Override
    public List<Tool> tools() {
        return List.of(new SubmitPlanTool(publisher));
    }
}
