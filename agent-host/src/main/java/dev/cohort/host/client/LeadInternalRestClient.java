package dev.cohort.host.client;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/**
 * The lead's internal API (the board under {@code /tasks}, teammates' approvals under {@code /approvals}) as a
 * MicroProfile REST client. Package-private: callers use {@link LeadInternalClient},
 * which adds the token, the retries and the mapping of HTTP errors to {@link LeadRefusedException} /
 * {@link LeadUnavailableException}.
 */
@Path("/internal/v1/teams/{team}")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
interface LeadInternalRestClient {

    @GET
    @Path("/tasks")
    List<LeadTasks.Task> list(@PathParam("team") String team);

    @GET
    @Path("/tasks/{id}")
    LeadTasks.Task get(@PathParam("team") String team, @PathParam("id") String id);

    @POST
    @Path("/tasks")
    LeadTasks.Task create(@PathParam("team") String team, LeadTasks.CreateRequest body);

    @POST
    @Path("/tasks/{id}/claim")
    LeadTasks.Claim claim(@PathParam("team") String team, @PathParam("id") String id, LeadTasks.ClaimRequest body);

    /** 200 with a claim, or 204 when no task is free. */
    @POST
    @Path("/tasks/claim-next")
    Response claimNext(@PathParam("team") String team, LeadTasks.ClaimRequest body);

    @POST
    @Path("/tasks/{id}/complete")
    LeadTasks.Completion complete(@PathParam("team") String team, @PathParam("id") String id, LeadTasks.CompleteRequest body);

    @POST
    @Path("/tasks/{id}/release")
    LeadTasks.Task release(@PathParam("team") String team, @PathParam("id") String id, LeadTasks.ReleaseRequest body);

    @POST
    @Path("/tasks/{id}/heartbeat")
    LeadTasks.Task heartbeat(@PathParam("team") String team, @PathParam("id") String id, LeadTasks.HeartbeatRequest body);

    @POST
    @Path("/tasks/heartbeats")
    LeadTasks.Renewal heartbeats(@PathParam("team") String team, LeadTasks.HeartbeatsRequest body);

    @POST
    @Path("/approvals")
    LeadApprovals.Answer checkApproval(@PathParam("team") String team, LeadApprovals.CheckRequest body);

    @POST
    @Path("/approvals/settled")
    LeadApprovals.Settled settledApprovals(@PathParam("team") String team, LeadApprovals.SettledRequest body);

    @POST
    @Path("/approvals/cancel")
    LeadApprovals.Cancelled cancelApprovals(@PathParam("team") String team, LeadApprovals.CancelRequest body);

    @GET
    LeadTeam team(@PathParam("team") String team);

    /** Claim-next for many teammates of one team at once. */
    @POST
    @Path("/tasks/claim-batch")
    LeadTasks.ClaimBatch claimBatch(@PathParam("team") String team, LeadTasks.ClaimBatchRequest body);
}
