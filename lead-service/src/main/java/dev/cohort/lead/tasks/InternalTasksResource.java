package dev.cohort.lead.tasks;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.lead.store.InTransaction;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Produces;
import java.net.URI;
import java.time.Instant;
import java.util.List;

/**
 * The board for other services (teammates), behind {@code cohort.internal.token}:
 * {@code /internal/v1/teams/{team}/tasks} — list, get, create, claim, claim-next, complete, release, heartbeat.
 *
 * <p>The acting agent is named in the body ({@code agent}); the caller is a trusted service that hosts it. With a
 * {@code leaseToken} the holder is identified by name and token (a stale replica that lost the lease is refused);
 * without one, by name alone. Refusals are problem+json with {@code code}, {@code blockers}, {@code owner}.
 */
@Path("/internal/v1/teams/{team}/tasks")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class InternalTasksResource {

    @Inject
    TaskService tasks;

    /** Body of create. */
    public record CreateRequest(String agent, String subject, String description, List<String> blockedBy, String role,
            String assignee) {
    }

    /**
     * Body of claim and claim-next: {@code leaseToken} makes a retry idempotent; {@code leaseSeconds} bounded by config;
     * {@code role} the teammate's role as its host knows it (a task naming a role goes only to that role).
     */
    public record ClaimRequest(String agent, String leaseToken, Double leaseSeconds, String role) {
    }

    /** One lease of a batched heartbeat. */
    public record LeaseRef(String id, String agent, String leaseToken) {
    }

    /** Body of the batched heartbeat: every lease a teammate replica's hosted teammates hold in this team. */
    public record HeartbeatsRequest(List<LeaseRef> leases, Double leaseSeconds) {
    }

    /** Answer of the batched heartbeat: renewed ids, and the ids whose lease is lost (the holder must stop). */
    public record HeartbeatsView(List<String> renewed, List<String> lost) {
    }

    /** Body of complete. */
    public record CompleteRequest(String agent, String leaseToken, String result) {
    }

    /** Body of release. */
    public record ReleaseRequest(String agent, String leaseToken) {
    }

    /** Body of heartbeat. */
    public record HeartbeatRequest(String agent, String leaseToken, Double leaseSeconds) {
    }

    /** A claim: the task, the token to send back on heartbeat/complete/release, and whether it was a new claim. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ClaimView(TaskView task, String leaseToken, Instant leaseUntil, boolean fresh) {
    }

    /** A completion: the task and exactly the tasks it unblocked; {@code repeated} for an already-completed task. */
    public record CompletionView(TaskView task, List<TaskView> unblocked, boolean repeated) {
    }

    @GET
    public List<TaskView> list(@PathParam("team") String team) {
        return tasks.list(team).stream().map(TaskView::of).toList();
    }

    @GET
    @Path("/{id}")
    public TaskView get(@PathParam("team") String team, @PathParam("id") String id) {
        return TaskView.of(tasks.get(team, id));
    }

    @POST
    public Response create(@PathParam("team") String team, CreateRequest body) {
        CreateRequest b = require(body);
        TaskRules.validateHolder(Holder.byName(b.agent()), tasks.config());
        TaskView v = TaskView.of(tasks.create(team, b.agent(), b.subject(), b.description(), b.blockedBy(), b.role(),
                b.assignee(), InTransaction.none()));
        return Response.created(URI.create("/api/v1/teams/" + team + "/tasks/" + v.id())).entity(v).build();
    }

    @POST
    @Path("/{id}/claim")
    public ClaimView claim(@PathParam("team") String team, @PathParam("id") String id, ClaimRequest body) {
        ClaimRequest b = require(body);
        double lease = TaskRules.leaseMillis(b.leaseSeconds(), tasks.config());
        return view(tasks.claim(team, id, holder(b.agent(), b.leaseToken()), b.role(), lease,
                InTransaction.none()));
    }

    /** 200 with the claim, or 204 when no task is free and unblocked. */
    @POST
    @Path("/claim-next")
    public Response claimNext(@PathParam("team") String team, ClaimRequest body) {
        ClaimRequest b = require(body);
        double lease = TaskRules.leaseMillis(b.leaseSeconds(), tasks.config());
        return tasks.claimNext(team, holder(b.agent(), b.leaseToken()), b.role(), lease)
                .map(c -> Response.ok(view(c)).build())
                .orElseGet(() -> Response.noContent().build());
    }

    @POST
    @Path("/{id}/complete")
    public CompletionView complete(@PathParam("team") String team, @PathParam("id") String id, CompleteRequest body) {
        CompleteRequest b = require(body);
        TaskService.Completion c = tasks.complete(team, id, holder(b.agent(), b.leaseToken()), b.result());
        return new CompletionView(TaskView.of(c.task()), c.unblocked().stream().map(TaskView::of).toList(), c.repeated());
    }

    @POST
    @Path("/{id}/release")
    public TaskView release(@PathParam("team") String team, @PathParam("id") String id, ReleaseRequest body) {
        ReleaseRequest b = require(body);
        return TaskView.of(tasks.release(team, id, holder(b.agent(), b.leaseToken())));
    }

    @POST
    @Path("/{id}/heartbeat")
    public TaskView heartbeat(@PathParam("team") String team, @PathParam("id") String id, HeartbeatRequest body) {
        HeartbeatRequest b = require(body);
        double lease = TaskRules.leaseMillis(b.leaseSeconds(), tasks.config());
        return TaskView.of(tasks.heartbeat(team, id, holder(b.agent(), b.leaseToken()), lease));
    }

    /** Renews many leases at once (one call per team per heartbeat round of a teammate replica). */
    @POST
    @Path("/heartbeats")
    public HeartbeatsView heartbeats(@PathParam("team") String team, HeartbeatsRequest body) {
        HeartbeatsRequest b = require(body);
        if (b.leases() == null || b.leases().size() > MAX_BATCH) {
            throw TaskRefusal.invalid("leases must list 0.." + MAX_BATCH + " {id, agent, leaseToken}");
        }
        double lease = TaskRules.leaseMillis(b.leaseSeconds(), tasks.config());
        List<TaskRepository.Lease> leases = b.leases().stream().map(l -> {
            if (l == null || l.leaseToken() == null) {
                throw TaskRefusal.invalid("every lease needs id, agent and leaseToken");
            }
            return new TaskRepository.Lease(
                    TaskIds.require(l.id()), l.agent(), l.leaseToken());
        }).toList();
        TaskService.Renewal r = tasks.heartbeatAll(team, leases, lease);
        return new HeartbeatsView(r.renewed(), r.lost());
    }

    /** One claimer of a batched claim: the agent, the lease token it asks with (required), its role (null: none). */
    public record BatchClaimer(String agent, String leaseToken, String role) {
    }

    /** Body of claim-batch: the idle teammates of one team a replica hosts, one lease length for all. */
    public record ClaimBatchRequest(List<BatchClaimer> claimers, Double leaseSeconds) {
    }

    /** One claim of a batch: who got it ({@code agent}), then the same fields as a single claim's answer. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record BatchClaimView(String agent, TaskView task, String leaseToken, Instant leaseUntil, boolean fresh) {
    }

    /** Answer of claim-batch: the claims in task id order; a claimer absent from it got nothing (no task for it). */
    public record ClaimBatchView(List<BatchClaimView> claims) {
    }

    /**
     * Claims for many teammates at once: what claim-next does for each claimer, in one transaction;
     * always 200, with the claims that went through.
     */
    @POST
    @Path("/claim-batch")
    public ClaimBatchView claimBatch(@PathParam("team") String team, ClaimBatchRequest body) {
        ClaimBatchRequest b = require(body);
        if (b.claimers() == null) {
            throw TaskRefusal.invalid("claimers must list 1.." + TaskService.MAX_CLAIM_BATCH + " {agent, leaseToken, role?}");
        }
        double lease = TaskRules.leaseMillis(b.leaseSeconds(), tasks.config());
        List<TaskRepository.BatchClaimer> claimers = b.claimers().stream()
                .map(c -> c == null ? null
                        : new TaskRepository.BatchClaimer(c.agent(), c.role(), c.leaseToken()))
                .toList();
        return new ClaimBatchView(tasks.claimBatch(team, claimers, lease).claims().stream()
                .map(c -> new BatchClaimView(c.task().owner(), TaskView.of(c.task()), c.leaseToken(), c.task().leaseUntil(),
                        c.fresh()))
                .toList());
    }

    /** Most leases in one batched heartbeat: a replica hosts at most a few hundred teammates. */
    static final int MAX_BATCH = 1000;

    private static Holder holder(String agent, String token) {
        return token == null ? Holder.byName(agent) : Holder.withLease(agent, token);
    }

    private static ClaimView view(TaskService.Claim c) {
        return new ClaimView(TaskView.of(c.task()), c.leaseToken(), c.task().leaseUntil(), c.fresh());
    }

    private static <T> T require(T body) {
        if (body == null) {
            throw TaskRefusal.invalid("a JSON body is required, with at least {\"agent\": \"<name>\"}");
        }
        return body;
    }
}
