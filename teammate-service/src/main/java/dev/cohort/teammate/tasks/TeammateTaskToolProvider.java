package dev.cohort.teammate.tasks;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.host.client.LeadInternalClient;
import dev.cohort.host.engine.RoleTools;
import dev.cohort.teammate.lifecycle.TeammateRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;

/**
 * The board tools of a teammate (ARCHITECTURE §4.3): {@code list_tasks}, {@code get_task},
 * {@code claim_task}, {@code complete_task}, over the lead's internal API with the host's identity (team, name,
 * role) and the held task's lease token, never an owner from the model's arguments.
 */
@ApplicationScoped
public class TeammateTaskToolProvider extends RoleTools {

    @Inject
    LeadInternalClient lead;

    @Inject
    TeammateTasks tasks;

    @Inject
    TeammateRepository teammates;

    TeammateTaskToolProvider() {
        super(40, AgentRole.TEAMMATE);
    }

    @Override
    public List<Tool> tools() {
        return List.of(new TeammateBoardTools.ListTasks(lead), new TeammateBoardTools.GetTask(lead),
                new TeammateBoardTools.ClaimTask(lead, tasks, teammates), new TeammateBoardTools.CompleteTask(lead, tasks));
    }
}
