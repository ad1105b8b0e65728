package dev.cohort.lead.api;

import dev.cohort.lead.persistence.TeamRepository;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Map;

/** Shutdown and plan-approval requests of a team. Teammates and their protocols come with the teammate issue. */
@Path("/api/v1/teams/{team}/protocols")
@Produces(MediaType.APPLICATION_JSON)
public class ProtocolsResource {

    @Inject
    TeamRepository teams;

    @GET
    public List<Map<String, Object>> list(@PathParam("team") String team) {
        if (!teams.exists(team)) {
            throw TeamsResource.notFound(team);
        }
        return List.of();
    }
}
