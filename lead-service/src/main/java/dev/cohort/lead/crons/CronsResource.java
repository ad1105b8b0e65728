package dev.cohort.lead.crons;

import dev.cohort.core.tools.cron.CronJobInfo;
import dev.cohort.core.tools.cron.ScheduleCronArgs;
import dev.cohort.core.tools.cron.SchedulerClient;
import dev.cohort.lead.config.LeadConfig;
import dev.cohort.lead.web.ApiException;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Produces;
import java.net.URI;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The team's cron jobs for the dashboard, on the lead's origin: {@code GET/POST /api/v1/teams/{team}/crons},
 * {@code DELETE …/crons/{id}} forwarded to scheduler-service (which stays the owner; a page cannot call it on its
 * other port without CORS). Refusals of the scheduler come back with its status and detail.
 */
@Path("/api/v1/teams/{team}/crons")
@Produces(MediaType.APPLICATION_JSON)
public class CronsResource {

    @Inject
    LeadConfig config;

    @ConfigProperty(name = "cohort.api.token")
    Optional<String> apiToken;

    /** What the page sends to add a job. */
    public record NewCron(String cron, String prompt, Boolean recurring) {
    }

    @GET
    public List<CronJobInfo> list(@PathParam("team") String team) {
        return call(() -> client().list(team));
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response add(@PathParam("team") String team, NewCron body) {
        if (body == null || body.cron() == null || body.cron().isBlank() || body.prompt() == null || body.prompt().isBlank()) {
            throw ApiException.badRequest("body must be {\"cron\": \"<5 fields>\", \"prompt\": \"…\", \"recurring\"?: bool}");
        }
        CronJobInfo job = call(() -> client().schedule(team,
                new ScheduleCronArgs(body.cron().strip(), body.prompt(), body.recurring(), null, null, "dashboard")));
        return Response.status(201).entity(job).build();
    }

    @DELETE
    @Path("/{id}")
    public Response remove(@PathParam("team") String team, @PathParam("id") String id) {
        if (!call(() -> client().cancel(team, id))) {
            throw ApiException.notFound("team " + team + " has no cron job " + id);
        }
        return Response.noContent().build();
    }

    private volatile SchedulerClient client;

    /** One client for every request (its connections are kept), built on first use. */
    private SchedulerClient client() {
        SchedulerClient c = client;
        if (c == null) {
            synchronized (this) {
                if (client == null) {
                    client = new SchedulerClient(URI.create(config.schedulerUrl()), apiToken.filter(s -> !s.isBlank()),
                            Duration.ofSeconds(10));
                }
                c = client;
            }
        }
        return c;
    }

    private static <T> T call(Supplier<T> c) {
        try {
            return c.get();
        } catch (SchedulerClient.Refused r) {
            throw new ApiException(r.status(), "Scheduler refused", r.getMessage());
        } catch (SchedulerClient.Unavailable u) {
            throw new ApiException(502, "Bad Gateway", "scheduler-service is not reachable: " + u.getMessage());
        }
    }
}
