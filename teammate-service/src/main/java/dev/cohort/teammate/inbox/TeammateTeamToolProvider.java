package dev.cohort.teammate.inbox;

import dev.cohort.core.team.TeamTools;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.host.engine.ToolProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Set;

/**
 * The team tools of a teammate ({@code send_message}, {@code check_inbox}) over {@link TeammateTeamChannel}. The board
 * tools and {@code submit_plan} of {@code Toolsets.TEAMMATE} are not offered yet; teammates never spawn.
 */
@ApplicationScoped
public class TeammateTeamToolProvider implements ToolProvider {

    @Inject
    TeammateTeamChannel channel;

    @Override
    public Set<AgentRole> roles() {
        return Set.of(AgentRole.TEAMMATE);
    }

    @Override
    public List<Tool> tools() {
        return TeamTools.common(channel);
    }

    @Override
    public int order() {
        return 50;
    }
}
