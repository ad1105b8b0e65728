package dev.cohort.toolrunner.api;

import dev.cohort.core.engine.LogContext;
import dev.cohort.core.toolrunner.BackgroundJob;
import dev.cohort.core.toolrunner.ToolCallRequest;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.toolrunner.ToolDescriptor;
import dev.cohort.platform.web.Problem;
import dev.cohort.toolrunner.AfterResponse;
import dev.cohort.toolrunner.background.BackgroundJobs;
import dev.cohort.toolrunner.calls.Tool;
import dev.cohort.toolrunner.calls.ToolRegistry;
import dev.cohort.toolrunner.calls.ToolService;
import io.vertx.ext.web.RoutingContext;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Produces;
import java.util.List;
import java.util.Optional;

/**
 * The internal API: {@code GET /internal/v1/tools} is the catalogue of the workspace tools (what the agents offer their
 * models); {@code POST /internal/v1/tools/{name}} runs a tool; {@code GET/DELETE
 * /internal/v1/background/{id}} inspects or cancels a background job. Blocking endpoints (worker threads): tools
 * block on processes and files.
 */
@Path("/internal/v1")
@Produces(MediaType.APPLICATION_JSON)
public class ToolResource {
    @Inject
    ToolService tools;
    @Inject
    BackgroundJobs background;
    @Inject
    ToolRegistry registry;

    @GET
    @Path("/tools")
    public List<ToolDescriptor> catalogue() {
        return registry.all().stream().map(Tool::descriptor).toList();
    }

    @POST
    @Path("/tools/{name}")
    @Consumes(MediaType.APPLICATION_JSON)
    public ToolCallResult call(@PathParam("name") String name, ToolCallRequest request,
            @Context RoutingContext rc) throws Exception {
        if (request == null) {
            return tools.call(name, null, RequestArrival.of(rc));
        }
        // work the call defers (a warm sandbox's replacement start) runs once the response is written, so it does
        // not take the CPU from this call's own answer
        AfterResponse.open();
        try (LogContext.Scope agent = LogContext.agent(request.team(), request.agent());
                LogContext.Scope call = LogContext.put(LogContext.CALL, request.callId())) {
            // the log fields of everything this call logs (JSON logs: mdc.team, mdc.agent, mdc.call)
            return tools.call(name, request, RequestArrival.of(rc));
        } finally {
            List<Runnable> deferred = AfterResponse.close();
            if (!deferred.isEmpty()) {
                if (rc == null) {
                    AfterResponse.runAll(deferred);
                } else {
                    // called when the response has been written, or the connection failed: either way, once
                    rc.addEndHandler(done -> AfterResponse.runAll(deferred));
                }
            }
        }
    }

    @GET
    @Path("/background/{id}")
    public Response job(@PathParam("id") String id) throws Exception {
        return answer(background.find(id), id);
    }

    @DELETE
    @Path("/background/{id}")
    public Response cancel(@PathParam("id") String id) throws Exception {
        return answer(background.cancel(id), id);
    }

    private static Response answer(Optional<BackgroundJob> job, String id) {
        return job.map(j -> Response.ok(j).build()).orElseGet(() -> Problem.of(404, "no background job " + id)
                .withInstance("/internal/v1/background/" + id).toResponse());
    }
}
