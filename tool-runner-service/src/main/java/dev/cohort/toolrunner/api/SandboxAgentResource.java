package dev.cohort.toolrunner.api;

import dev.cohort.core.toolrunner.BackgroundJob;
import dev.cohort.platform.web.Problem;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.persistence.FileBackgroundJobStore;
import dev.cohort.toolrunner.remote.SandboxBinding;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.PUT;
import java.util.List;

/**
 * What a sandbox agent ({@code role=sandbox}) answers besides the tool calls ({@code POST /internal/v1/tools/{name}},
 * as the runner's): its binding to a team, and the background jobs whose start or end the control half has not
 * announced yet (the sandbox reaches no broker; the control half publishes for it). Answered 404 in the other roles.
 */
@Path("/internal/v1/sandbox")
@Produces(MediaType.APPLICATION_JSON)
public class SandboxAgentResource {

    /** The binding the control half asks for. */
    public record Binding(String team, String token) {
    }

    /** Jobs to announce: running ones (the start) and finished ones whose end is not acknowledged. */
    public record Notices(List<BackgroundJob> running, List<BackgroundJob> finished) {
    }

    @Inject
    ToolRunnerConfig config;
    @Inject
    SandboxBinding binding;
    @Inject
    FileBackgroundJobStore jobs;

    @PUT
    @Path("/binding")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response bind(Binding b) {
        if (config.role() != ToolRunnerConfig.Role.SANDBOX) {
            return notASandbox();
        }
        if (b == null) {
            return Problem.of(400, "the binding needs a body {team, token}").toResponse();
        }
        try {
            if (binding.bind(b.team(), b.token())) {
                return Response.noContent().build();
            }
        } catch (IllegalArgumentException e) {
            return Problem.of(400, e.getMessage()).toResponse();
        }
        return Problem.of(409, "this sandbox is bound to another team or token; a sandbox serves one team").toResponse();
    }

    @GET
    @Path("/notices")
    public Response notices() {
        if (config.role() != ToolRunnerConfig.Role.SANDBOX) {
            return notASandbox();
        }
        return Response.ok(new Notices(jobs.running(), jobs.unnotified())).build();
    }

    @POST
    @Path("/notices/{id}")
    public Response acknowledge(@PathParam("id") String id) {
        if (config.role() != ToolRunnerConfig.Role.SANDBOX) {
            return notASandbox();
        }
        jobs.markNotified(id);
        return Response.noContent().build();
    }

    private static Response notASandbox() {
        return Problem.of(404, "this tool runner is not a team sandbox (cohort.tool-runner.role)").toResponse();
    }
}
