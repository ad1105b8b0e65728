package dev.cohort.lead.events;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.AgentState;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.lead.events.RosterRepository.RosterRow;
import dev.cohort.lead.teams.AgentRepository;
import dev.cohort.lead.teams.AgentRepository.AgentRow;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A team's agents as the API (and the MCP server) shows them: the lead and the agents whose state this service saves
 * ({@code lead.agents}), then the teammates of the roster the events project. The lead is always listed, idle before its
 * first turn.
 */
@ApplicationScoped
public class TeamAgents {

    /**
     * An agent as the API shows it. For a teammate: {@code role} its role, {@code status} its phase ({@code starting},
     * {@code working}, {@code idle}, {@code waiting_approval}, {@code waiting_reply}, {@code shutdown}),
     * {@code usage} what it last reported, {@code replica} the teammate-service instance hosting it.
     */
    public record AgentView(String name, String role, String status, String turnId, String currentTask, JsonNode usage,
            JsonNode todos, String replica, Instant updatedAt) {
    }

    @Inject
    AgentRepository agents;

    @Inject
    RosterRepository roster;

    /** Every agent of the team (the caller checks that the team exists). */
    public List<AgentView> list(String team) {
        List<AgentRow> rows = agents.list(team);
        List<AgentView> out = new ArrayList<>();
        if (rows.stream().noneMatch(r -> r.name().equals(Ids.LEAD))) {
            out.add(idleLead());
        }
        rows.stream().map(TeamAgents::view).forEach(out::add);
        Set<String> seen = new HashSet<>(rows.stream().map(AgentRow::name).toList());
        roster.list(team).stream().filter(r -> !seen.contains(r.name())).map(TeamAgents::view).forEach(out::add);
        return out;
    }

    /** One agent of the team; empty when it has none of that name. */
    public Optional<AgentView> find(String team, String name) {
        return agents.find(team, name).map(TeamAgents::view)
                .or(() -> roster.find(team, name).map(TeamAgents::view))
                .or(() -> Ids.LEAD.equals(name) ? Optional.of(idleLead()) : Optional.empty());
    }

    private static AgentView idleLead() {
        return new AgentView(Ids.LEAD, "lead", "idle", null, null, Json.MAPPER.createObjectNode(),
                Json.MAPPER.createArrayNode(), null, null);
    }

    private static AgentView view(AgentRow r) {
        AgentState s = AgentState.fromJson(r.stateJson());
        return new AgentView(r.name(), Ids.LEAD.equals(r.name()) ? "lead" : "teammate", r.status(), r.turnId(), null,
                Json.MAPPER.valueToTree(s.usage()), Json.MAPPER.valueToTree(s.todos()), r.owner(), r.updatedAt());
    }

    private static AgentView view(RosterRow r) {
        return new AgentView(r.name(), r.role() == null ? "teammate" : r.role(), r.phase(), r.turnId(),
                r.currentTask(), r.usage(), Json.MAPPER.createArrayNode(), r.replica(), r.updatedAt());
    }
}
