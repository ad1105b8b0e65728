package dev.cohort.lead.teammates;

import dev.cohort.core.team.TeamTools;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.host.engine.EngineConfig;
import dev.cohort.host.engine.RoleTools;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;

/**
 * The lead's team tools: {@code spawn_teammate} (the lead only: teammates never get it) and core's
 * {@code send_message} / {@code check_inbox} over {@link LeadTeamChannel}.
 */
@ApplicationScoped
public class TeamToolProvider extends RoleTools {

    @Inject
    TeammateService service;

    @Inject
    LeadTeamChannel channel;

    @Inject
    TeammateLimits limits;

    @Inject
    EngineConfig engine;

    TeamToolProvider() {
        super(110, AgentRole.LEAD); // after the task board (100): the model is offered the board first, then the team
    }

    @Override
    public List<Tool> tools() {
        List<Tool> tools = new ArrayList<>();
        tools.add(new SpawnTeammateTool(service, limits::values,
                () -> new TeamBudget(engine.budgets().tokensPerTeam(), engine.budgets().costPerTeamUsd(),
                        engine.budgets().tokensPerTeamPerDay(), engine.budgets().costPerTeamPerDayUsd())));
        tools.addAll(TeamTools.common(channel));
        return tools;
    }
}
