package dev.cohort.teammate.inbox;

import dev.cohort.core.team.TeamTools;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.host.engine.RoleTools;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;

/**
 * The team tools of a teammate ({@code send_message}, {@code check_inbox}) over {@link TeammateTeamChannel}. The board
 * tools and {@code submit_plan} come from their own providers; teammates never spawn.
 */
@ApplicationScoped
public class TeammateTeamToolProvider extends RoleTools {

    @Inject
    TeammateTeamChannel channel;

    TeammateTeamToolProvider() {
        super(50, AgentRole.TEAMMATE);
    }

    @Override
    public List<Tool> tools() {
        return TeamTools.common(channel);
    }
}
