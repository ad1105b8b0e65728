package dev.cohort.lead.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.Message;
import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.payload.Control;
import dev.cohort.core.team.TeamMessages;
import dev.cohort.lead.events.RosterRepository;
import dev.cohort.lead.events.TeamAgents;
import dev.cohort.lead.events.TeamAgents.AgentView;
import dev.cohort.lead.events.RosterRepository.RosterRow;
import dev.cohort.lead.inbox.AgentInboxPublisher;
import dev.cohort.lead.teams.AgentRepository;
import dev.cohort.lead.teams.AgentRepository.AgentRow;
import dev.cohort.lead.teams.TeamRepository;
import dev.cohort.lead.teams.TeamsResource;
import dev.cohort.lead.web.ApiException;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Produces;
import java.util.List;
import java.util.Map;

/**
 * Agents of a team: the lead (its saved state) and the teammates of the roster ({@code lead.roster}: status = their
 * phase), their transcripts (the lead's), messages to any of them, and interrupting their running turns.
 */
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
    AgentInboxPublisher inbox;

    @Inject
    RosterRepository roster;

    @Inject
    TeamAgents teamAgents;

    /** The {@code from} of a message a person sends over HTTP ({@code POST …/agents/{name}/messages}). */
    static final String USER_SENDER = "user";

    /** Body of {@code POST …/agents/{name}/messages}. */
    public record SendMessage(String content) {
    }

    /** The {@code from} of a control message sent for an HTTP caller. */
    static final String CONTROL_SENDER = "api";

    @GET
    public List<AgentView> list(@PathParam("team") String team) {
        requireTeam(team);
        return teamAgents.list(team);
    }

    @GET
    @Path("/{name}")
    public AgentView get(@PathParam("team") String team, @PathParam("name") String name) {
        requireTeam(team);
        return teamAgents.find(team, name).orElseThrow(() -> unknownAgent(team, name));
    }

    /**
     * A message from a person ({@code from: "user"}) to the lead ({@code cohort.lead.inbox}: it wakes the lead, which
     * reads it as an {@code [inbox]} message) or to a teammate of the roster ({@code cohort.teammate.inbox}, key
     * {@code <team>/<name>}; a shut-down teammate reads it when a spawn restarts it). 202 {@code {id}} once the broker
     * has it.
     */
    @POST
    @Path("/{name}/messages")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response send(@PathParam("team") String team, @PathParam("name") String name, SendMessage body) {
        requireTeam(team);
        if (body == null || body.content() == null || body.content().isBlank()) {
            throw ApiException.badRequest("body required: {\"content\": \"…\"} with a non-empty content");
        }
        if (body.content().length() > TeamMessages.MAX_CONTENT) {
            throw ApiException.badRequest("content has " + body.content().length() + " characters; the limit is "
                    + TeamMessages.MAX_CONTENT);
        }
        if (!Ids.LEAD.equals(name) && roster.find(team, name).isEmpty()) {
            throw unknownAgent(team, name);
        }
        AgentMessage m = AgentMessage.of(team, USER_SENDER, name, MessageType.MESSAGE, body.content(), Map.of());
        publish(m);
        return Response.accepted(Map.of("id", m.id())).type(MediaType.APPLICATION_JSON).build();
    }

    /**
     * Ends a teammate's running turn (or one parked on an approval): a {@code control} interrupt on its inbox
     * ({@code cohort.teammate.inbox}, key {@code <team>/<name>}), which the replica hosting it acts on; it names the
     * turn the roster shows, if any (a host on another turn by then ignores it). 202 {@code interruptRequested}.
     */
    @POST
    @Path("/{name}/interrupt")
    public Response interruptTeammate(@PathParam("team") String team, @PathParam("name") String name) {
        requireTeam(team);
        RosterRow row = roster.find(team, name).orElseThrow(() -> unknownAgent(team, name));
        publish(AgentMessage.of(team, CONTROL_SENDER, row.name(), "", Control.interrupt(row.turnId())));
        return Response.accepted(Map.of("interruptRequested", true)).type(MediaType.APPLICATION_JSON).build();
    }

    private void publish(AgentMessage m) {
        try {
            inbox.publish(m);
        } catch (IllegalStateException e) {
            throw new ApiException(503, "Service Unavailable", "the message could not be queued: " + e.getMessage());
        }
    }

    private static ApiException unknownAgent(String team, String name) {
        return ApiException.notFound("unknown agent \"" + name + "\" in team \"" + team + "\"");
    }

    /** The agent's conversation (the transcript the engine keeps; compaction may have summarised older parts). */
    @GET
    @Path("/{name}/messages")
    public JsonNode messages(@PathParam("team") String team, @PathParam("name") String name) {
        requireTeam(team);
        return agents.conversation(team, name).<JsonNode>map(AgentsResource::conversation)
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
        publish(AgentMessage.of(team, CONTROL_SENDER, Ids.LEAD, "", Control.interrupt(turnId)));
        return Response.accepted(Map.of("interruptRequested", true)).type(MediaType.APPLICATION_JSON).build();
    }

    private void requireTeam(String team) {
        if (!teams.exists(team)) {
            throw TeamsResource.notFound(team);
        }
    }

    /** The stored conversation read back as the engine's messages, so the API shows them as the engine writes them. */
    private static JsonNode conversation(String json) {
        try {
            List<Message> messages = Json.MAPPER.readValue(json,
                    Json.MAPPER.getTypeFactory().constructCollectionType(List.class, Message.class));
            return Json.MAPPER.valueToTree(messages);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a stored conversation that does not read as messages: " + e.getOriginalMessage(), e);
        }
    }
}
