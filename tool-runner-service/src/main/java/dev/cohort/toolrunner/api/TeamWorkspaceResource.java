package dev.cohort.toolrunner.api;

import dev.cohort.toolrunner.BadRequest;
import dev.cohort.toolrunner.workspace.Workspaces;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.PUT;

/**
 * {@code PUT /internal/v1/teams/{team}/workspace {workspace}}: the host (lead-service, when a team is created with
 * its own workspace) asks the runner to check and prepare it; the runner owns the rule because it is the only thing
 * that touches files. A refusal is a 400 problem naming the rule; another workspace already set is a 409.
 */
@Path("/internal/v1/teams/{team}/workspace")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class TeamWorkspaceResource {
    @Inject
    Workspaces workspaces;

    /** The body: the directory as the API caller gave it (relative to the runner's root, or absolute). */
    public record Request(String workspace) {
    }

    /** The answer: the workspace's real path. */
    public record Assigned(String team, String workspace) {
    }

    @PUT
    public Assigned assign(@PathParam("team") String team, Request body) {
        if (body == null) {
            throw new BadRequest("body required: {\"workspace\": \"<directory>\"}");
        }
        return new Assigned(team, workspaces.assign(team, body.workspace()).toString());
    }
}
