package dev.cohort.lead.protocols;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.host.engine.RoleTools;
import dev.cohort.lead.store.ToolEffectRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;

/** The lead's protocol tools: {@code request_shutdown}, {@code request_plan}, {@code review_plan}. */
@ApplicationScoped
public class ProtocolToolProvider extends RoleTools {

    @Inject
    ProtocolService service;

    @Inject
    ToolEffectRepository effects;

    ProtocolToolProvider() {
        super(120, AgentRole.LEAD); // after the team tools (110)
    }

    @Override
    public List<Tool> tools() {
        return List.of(new RequestShutdownTool(service, effects), new RequestPlanTool(service, effects),
                new ReviewPlanTool(service, effects));
    }
}
