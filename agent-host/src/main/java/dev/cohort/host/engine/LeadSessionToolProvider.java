package dev.cohort.host.engine;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.compact.CompactTool;
import dev.cohort.core.tools.subagent.SpawnSubagentTool;
import dev.cohort.core.tools.Tool;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/**
 * The engine's own tools that only the lead gets (each lists only that role): {@code spawn_subagent} and
 * {@code compact}.
 */
@ApplicationScoped
public class LeadSessionToolProvider extends RoleTools {

    LeadSessionToolProvider() {
        super(10, AgentRole.LEAD);
    }

    @Override
    public List<Tool> tools() {
        return List.of(new SpawnSubagentTool(), new CompactTool());
    }
}
