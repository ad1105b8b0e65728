package dev.cohort.scheduler.api;

import dev.cohort.core.tools.cron.CronLimits;
import dev.cohort.scheduler.jobs.CronJob;
import dev.cohort.scheduler.jobs.CronJobRequest;
import dev.cohort.scheduler.jobs.CronJobService;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Produces;
import java.util.List;

/**
 * The cron API of the public contract: {@code POST/GET /api/v1/teams/{team}/crons}, {@code DELETE …/crons/{id}}, and
 * {@code GET …/crons/limits} (the limits in force and the team's counts). A
 * create or cancel may carry an {@code Idempotency-Key} header: a repeat gets the first answer (same status and body,
 * plus {@code Idempotent-Replayed: true}) instead of a second effect.
 */
@Path("/api/v1/teams/{team}/crons")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class CronResource {

    @Inject
    CronJobService service;

    /** Schedules a job: 201 with the job and its first {@code nextFireAt}, or 400 problem+json naming the problem. */
    @POST
    public Response create(@PathParam("team") String team, CronJobRequest body,
            @HeaderParam(IDEMPOTENCY_KEY) String idempotencyKey, @Context UriInfo uri) {
        CronJobService.Created created = service.create(team, body, idempotencyKey);
        CronJob job = created.job();
        return replayed(Response.created(uri.getAbsolutePathBuilder().path(job.id()).build()).entity(CronJobView.of(job)),
                created.replayed()).build();
    }

    /** The optional request header that makes a create or cancel idempotent. */
    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    /** Set to {@code true} on an answer that is the stored answer to an earlier request with the same key. */
    public static final String REPLAYED = "Idempotent-Replayed";

    private static Response.ResponseBuilder replayed(Response.ResponseBuilder b, boolean replayed) {
        return replayed ? b.header(REPLAYED, "true") : b;
    }

    /** The team's jobs, oldest first (durable and non-durable alike). */
    @GET
    public List<CronJobView> list(@PathParam("team") String team) {
        return service.list(team).stream().map(CronJobView::of).toList();
    }

    /**
     * The limits in force for the team's jobs, general and for jobs its agents create, with its current counts (shown
     * by {@code cohort budget} through lead-service). A literal segment, so it never reads as a job id.
     */
    @GET
    @Path("limits")
    public CronLimits limits(@PathParam("team") String team) {
        return service.limits(team);
    }

    @GET
    @Path("{id}")
    public CronJobView get(@PathParam("team") String team, @PathParam("id") String id) {
        return CronJobView.of(service.get(team, id));
    }

    /** Cancels a job: 204, after which it never fires again; 404 problem+json if there is no such job. */
    @DELETE
    @Path("{id}")
    public Response cancel(@PathParam("team") String team, @PathParam("id") String id,
            @HeaderParam(IDEMPOTENCY_KEY) String idempotencyKey) {
        return replayed(Response.noContent(), service.cancel(team, id, idempotencyKey)).build();
    }
}
