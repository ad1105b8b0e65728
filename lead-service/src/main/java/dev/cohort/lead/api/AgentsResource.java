package dev.cohort.lead.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.AgentState;
import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.payload.Control;
import dev.cohort.lead.messaging.LeadInboxPublisher;
import dev.cohort.lead.persistence.AgentRepository;
import dev.cohort.lead.persistence.AgentRepository.AgentRow;
import dev.cohort.lead.persistence.TeamRepository;
import dev.cohort.lead.service.LeadHost;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Agents of a team: state, transcript, and interrupting the lead's running turn. */
@Path("/api/v1/teams/{team}/agents")
@Produces(MediaType.APPLICATION_JSON)
public class AgentsResource {

    @Inject
    TeamRepository teams;

    @Inject
    AgentRepository agents;

    @Inject
    LeadHost host;

    @Inject
    LeadInboxPublisher inbox;

    /** The {@code from} of a control message sent for an HTTP caller. */
    static final String CONTROL_SENDER = "api";

    /** An agent as the API shows it. */
    public record AgentView(String name, String role, String status, String turnId, JsonNode usage, JsonNode todos,
            Instant updatedAt) {
    }

    @GET
    public List<AgentView> list(@PathParam("team") String team) {
        requireTeam(team);
        List<AgentRow> rows = agents.list(team);
        if (rows.stream().noneMatch(r -> r.name().equals(Ids.LEAD))) {
            return java.util.stream.Stream.concat(java.util.stream.Stream.of(idleLead()), rows.stream().map(AgentsResource::view))
                    .toList();
        }
        return rows.stream().map(AgentsResource::view).toList();
    }

    @GET
    @Path("/{name}")
    public AgentView get(@PathParam("team") String team, @PathParam("name") String name) {
        requireTeam(team);
        return agents.find(team, name).map(AgentsResource::view)
                .orElseGet(() -> {
                    if (Ids.LEAD.equals(name)) {
                        return idleLead();
                    }
                    throw ApiException.notFound("unknown agent \"" + name + "\" in team \"" + team + "\"");
                });
    }

    /** The agent's conversation (the transcript the engine keeps; compaction may have summarised older parts). */
    @GET
    @Path("/{name}/messages")
    public JsonNode messages(@PathParam("team") String team, @PathParam("name") String name) {
        requireTeam(team);
        return agents.find(team, name).<JsonNode>map(r -> Json.MAPPER.valueToTree(AgentState.fromJson(r.stateJson()).messages()))
                .orElseGet(() -> {
                    if (Ids.LEAD.equals(name)) {
                        return Json.MAPPER.createArrayNode();
                    }
                    throw ApiException.notFound("unknown agent \"" + name + "\" in team \"" + team + "\"");
                });
    }

    /**
     * Stops the lead's turn at its next step (tool calls already started finish and are recorded), or ends a turn
     * parked on an approval, on whichever replica hosts the lead: done here when this replica runs the turn (202
     * {@code interrupted}); else, when the lead's saved state shows a turn in progress, a {@code control} message naming
     * that turn goes on {@code cohort.lead.inbox} (keyed by team) to the owning replica, and the 202
     * {@code interruptRequested} says it is durably queued; else 409: no turn to interrupt.
     */
    @POST
    @Path("/lead/interrupt")
    public Response interrupt(@PathParam("team") String team) {
        requireTeam(team);
        if (host.interrupt(team)) {
            return Response.accepted(Map.of("interrupted", true)).type(MediaType.APPLICATION_JSON).build();
        }
        // named, so a late or redelivered request cannot end a later turn, which nobody asked to interrupt
        String turnId = agents.find(team, Ids.LEAD).map(AgentRow::turnId).orElse(null);
        if (turnId == null) {
            throw ApiException.conflict("the lead of \"" + team + "\" has no turn in progress");
        }
        inbox.publish(AgentMessage.of(team, CONTROL_SENDER, Ids.LEAD, "", Control.interrupt(turnId)));
        return Response.accepted(Map.of("interruptRequested", true)).type(MediaType.APPLICATION_JSON).build();
    }

    private void requireTeam(String team) {
        if (!teams.exists(team)) {
            throw TeamsResource.notFound(team);
        }
    }

    private static AgentView idleLead() {
        return new AgentView(Ids.LEAD, "lead", "idle", null, Json.MAPPER.createObjectNode(), Json.MAPPER.createArrayNode(), null);
    }

    private static AgentView view(AgentRow r) {
        AgentState s = AgentState.fromJson(r.stateJson());
        return new AgentView(r.name(), Ids.LEAD.equals(r.name()) ? "lead" : "teammate", r.status(), r.turnId(),
                Json.MAPPER.valueToTree(s.usage()), Json.MAPPER.valueToTree(s.todos()), r.updatedAt());
    }
}
