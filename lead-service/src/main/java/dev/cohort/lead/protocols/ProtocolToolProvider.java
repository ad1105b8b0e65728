package dev.cohort.lead.protocols;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.host.engine.ToolProvider;
import dev.cohort.lead.store.ToolEffectRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Set;

/** The lead's protocol tools: {@code request_shutdown}, {@code request_plan}, {@code review_plan}. */
@ApplicationScoped
public class ProtocolToolProvider implements ToolProvider {

    @Inject
    ProtocolService service;

    @Inject
    ToolEffectRepository effects;

    @Override
    public Set<AgentRole> roles() {
        return Set.of(AgentRole.LEAD);
    }

    @Override
    public List<Tool> tools() {
        return List.of(new RequestShutdownTool(service, effects), new RequestPlanTool(service, effects),
                new ReviewPlanTool(service, effects));
    }

    @Override
    public int order() {
        return 120; // after the team tools (110)
    }
}
