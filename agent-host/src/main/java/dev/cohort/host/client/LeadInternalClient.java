package dev.cohort.host.client;

import dev.cohort.core.engine.ApprovalGateway;
import dev.cohort.core.http.ServiceClient;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.URI;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The lead's internal API for other services (teammates): the board ({@code /internal/v1/teams/{team}/tasks}: list,
 * get, create, claim, claim-next, complete, release, heartbeat) and approvals of teammates' tool calls
 * ({@code /internal/v1/teams/{team}/approvals}: {@link #checkApproval}, behind {@link RemoteApprovalGateway}). The
 * acting agent is named in each call; the lead trusts the caller because it holds {@code cohort.internal.token}.
 *
 * <p>Configuration: {@code cohort.lead-internal.url} (lead-service's base URL; a service sets it to
 * {@code ${COHORT_LEAD_URL:...}}, which {@code cohort up} provides) and {@code cohort.internal.token} (env
 * {@code COHORT_INTERNAL_TOKEN}; unset = no header, for local runs). Both are read on first use, so a service that never
 * calls the lead needs neither.
 *
 * <p>Calls go through a {@link ServiceClient} under the services' retry policy, within {@link #RETRY}'s budget. A 4xx is
 * a {@link LeadRefusedException} (never retried); no answer, or a 5xx after the retries, is a
 * {@link LeadUnavailableException}. Reads, heartbeats, completions and approval asks are idempotent and retried;
 * {@code claim} and {@code claimNext} are too, because the client sends a lease token (its own when the caller has
 * none): a retried claim returns the same claim, never a second task. {@code create} and {@code release} are not
 * retried (sent again only when the connection was refused, so never twice).
 */
@ApplicationScoped
public class LeadInternalClient {

    /** Above every board operation (single SQL statements). */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(8);
    /** The retries' budget: a lead replica restarting or handing over is ridden out. */
    static final ServiceClient.Retry RETRY = ServiceClient.Retry.within(Duration.ofSeconds(10));

    private volatile ServiceClient http;

    /**
     * The key of the lead's base URL. Not under {@code cohort.lead.*}: lead-service maps that prefix
     * ({@code LeadConfig}) and would refuse an unknown key in it, and the lead's own tests use this client.
     */
    public static final String URL_KEY = "cohort.lead-internal.url";

    /** The CDI bean: configured from {@link #URL_KEY} and {@code cohort.internal.token} on first use. */
    LeadInternalClient() {
    }

    /** A client of the lead at {@code url} with this token (none: no header), with one attempt per call (tests). */
    LeadInternalClient(URI url, Optional<String> token) {
        this.http = build(url, token, ServiceClient.Retry.within(Duration.ZERO));
    }

    /** The HTTP client, built on first use from the config of that moment. */
    private ServiceClient http() {
        ServiceClient h = http;
        if (h == null) {
            synchronized (this) {
                h = http;
                if (h == null) {
                    var config = ConfigProvider.getConfig();
                    String url = config.getOptionalValue(URL_KEY, String.class).filter(u -> !u.isBlank())
                            .orElseThrow(() -> new IllegalStateException(URL_KEY + " is not set: the base URL of lead-service,"
                                    + " e.g. " + URL_KEY + "=${COHORT_LEAD_URL:http://127.0.0.1:8080}"));
                    http = h = build(URI.create(url), config.getOptionalValue("cohort.internal.token", String.class),
                            RETRY);
                }
            }
        }
        return h;
    }

    private static ServiceClient build(URI url, Optional<String> token, ServiceClient.Retry retry) {
        return new ServiceClient("lead-service", List.of(url.toString()), token.filter(t -> !t.isBlank()).orElse(null),
                REQUEST_TIMEOUT, retry);
    }

    /** The team's board, in id order. */
    public List<LeadTasks.Task> list(String team) {
        return call(getOf(team, "tasks"), LeadTasks.Task[].class).map(List::of).orElseThrow();
    }

    /** One task; an unknown one is a {@link LeadRefusedException} with code {@code not-found}. */
    public LeadTasks.Task get(String team, String id) {
        return call(getOf(team, "tasks/" + ServiceClient.segment(id)), LeadTasks.Task.class).orElseThrow();
    }

    /** Creates a task as {@code agent}. Not retried: a retry after a lost answer would create a second task. */
    public LeadTasks.Task create(String team, String agent, String subject, String description, List<String> blockedBy) {
        return call(postTo(team, "tasks", new LeadTasks.CreateRequest(agent, subject, description, blockedBy), false),
                LeadTasks.Task.class).orElseThrow();
    }

    /**
     * Claims task {@code id} for {@code agent} with {@code leaseToken} ({@code null}: a fresh one), for
     * {@code leaseSeconds} ({@code null}: the lead's default).
     */
    public LeadTasks.Claim claim(String team, String id, String agent, String leaseToken, Double leaseSeconds) {
        return claimWithToken(team, id, agent, leaseToken == null ? newLeaseToken() : leaseToken, leaseSeconds);
    }

    /** {@link #claim}, with the token fixed before the first attempt so every retry is the same claim. */
    LeadTasks.Claim claimWithToken(String team, String id, String agent, String leaseToken, Double leaseSeconds) {
        return call(postTo(team, "tasks/" + ServiceClient.segment(id) + "/claim",
                new LeadTasks.ClaimRequest(agent, leaseToken, leaseSeconds), true), LeadTasks.Claim.class).orElseThrow();
    }

    /** Claims the oldest free, unblocked task; empty when there is none. */
    public Optional<LeadTasks.Claim> claimNext(String team, String agent, String leaseToken, Double leaseSeconds) {
        return claimNextWithToken(team, agent, leaseToken == null ? newLeaseToken() : leaseToken, leaseSeconds);
    }

    Optional<LeadTasks.Claim> claimNextWithToken(String team, String agent, String leaseToken, Double leaseSeconds) {
        return call(postTo(team, "tasks/claim-next", new LeadTasks.ClaimRequest(agent, leaseToken, leaseSeconds), true),
                LeadTasks.Claim.class);
    }

    /** Completes a held task; completing it again answers the same completion with {@code repeated = true}. */
    public LeadTasks.Completion complete(String team, String id, String agent, String leaseToken, String result) {
        return call(postTo(team, "tasks/" + ServiceClient.segment(id) + "/complete",
                new LeadTasks.CompleteRequest(agent, leaseToken, result), true), LeadTasks.Completion.class).orElseThrow();
    }

    /** Gives a held task back. Not retried: a second release after a lost answer is refused (no longer the holder). */
    public LeadTasks.Task release(String team, String id, String agent, String leaseToken) {
        return call(postTo(team, "tasks/" + ServiceClient.segment(id) + "/release",
                new LeadTasks.ReleaseRequest(agent, leaseToken), false), LeadTasks.Task.class).orElseThrow();
    }

    /** Renews a live lease; a lost lease is a {@link LeadRefusedException} ({@code lease-expired}, ...): stop working. */
    public LeadTasks.Task heartbeat(String team, String id, String agent, String leaseToken, Double leaseSeconds) {
        return call(postTo(team, "tasks/" + ServiceClient.segment(id) + "/heartbeat",
                new LeadTasks.HeartbeatRequest(agent, leaseToken, leaseSeconds), true), LeadTasks.Task.class).orElseThrow();
    }

    /**
     * Asks the lead about one tool call of a teammate's turn (contract §6): the same request (id derived from team,
     * agent, turn and call) however often it is asked, so it is retried. Answers at once: approved, denied with the
     * reason, or pending with the approval id to park on (the lead then sends {@code approval_resolved} to the
     * teammate's inbox when a person answers).
     *
     * @throws LeadRefusedException    the lead refused the ask (unknown team, bad request, missing token)
     * @throws LeadUnavailableException the lead is unreachable or failing, after the retries
     */
    public ApprovalGateway.Decision checkApproval(String team, ApprovalGateway.Request request) {
        LeadApprovals.Answer a = call(postTo(team, "approvals", new LeadApprovals.CheckRequest(request.agent(),
                request.turnId(), request.callId(), request.tool(), request.args(), request.reason(),
                Math.max(1, (long) Math.ceil(request.timeout().toMillis() / 1000.0))), true),
                LeadApprovals.Answer.class).orElse(null);
        return decision(a);
    }

    /**
     * Of the approvals of {@code team} with these ids, those answered or past their expiry: for a host's sweep
     * ({@code AgentProgram.settled}), the safety net under the lead's {@code approval_resolved}. Read-only, retried.
     */
    public Set<String> settledApprovals(String team, Collection<String> approvalIds) {
        if (approvalIds.isEmpty()) {
            return Set.of();
        }
        LeadApprovals.Settled s = call(postTo(team, "approvals/settled",
                new LeadApprovals.SettledRequest(List.copyOf(approvalIds)), true), LeadApprovals.Settled.class).orElse(null);
        return s == null || s.settled() == null ? Set.of() : Set.copyOf(s.settled());
    }

    /**
     * Turn {@code turnId} of teammate {@code agent} ended: the lead cancels the approvals it still waited for, so no
     * person is asked to answer them. Idempotent (a repeat cancels nothing), so it is retried; returns the ids cancelled.
     */
    public List<String> cancelApprovalsOfTurn(String team, String agent, String turnId, String reason) {
        LeadApprovals.Cancelled c = call(postTo(team, "approvals/cancel", new LeadApprovals.CancelRequest(agent, turnId,
                reason), true), LeadApprovals.Cancelled.class).orElse(null);
        return c == null || c.cancelled() == null ? List.of() : List.copyOf(c.cancelled());
    }

    /** The team's permission mode, which its teammates follow. Read-only, retried. */
    public LeadTeam team(String team) {
        return call(ServiceClient.Request.get(base(team)), LeadTeam.class).orElseThrow();
    }

    /** The lead's answer as the engine's decision; an answer it cannot read is the lead failing. */
    static ApprovalGateway.Decision decision(LeadApprovals.Answer a) {
        String status = a == null || a.status() == null ? "" : a.status();
        return switch (status) {
            case "approved" -> ApprovalGateway.Decision.approve();
            case "denied" -> ApprovalGateway.Decision.deny(a.reason() == null ? "denied" : a.reason());
            case "pending" -> {
                if (a.approvalId() == null || a.approvalId().isBlank()) {
                    throw new LeadUnavailableException("lead-service answered pending without an approval id", null);
                }
                yield ApprovalGateway.Decision.pending(a.approvalId());
            }
            default -> throw new LeadUnavailableException("lead-service answered an unknown approval status \""
                    + status + "\"", null);
        };
    }

    static String newLeaseToken() {
        return UUID.randomUUID().toString();
    }

    private static String base(String team) {
        return "internal/v1/teams/" + ServiceClient.segment(team);
    }

    private static ServiceClient.Request getOf(String team, String path) {
        return ServiceClient.Request.get(base(team) + "/" + path);
    }

    private static ServiceClient.Request postTo(String team, String path, Object body, boolean retryable) {
        return ServiceClient.Request.post(base(team) + "/" + path, body, retryable);
    }

    /**
     * Sends one request: its 2xx body as {@code type} (empty for a 204); a 4xx is a {@link LeadRefusedException} with
     * the problem's detail, code and owner; anything else, or no answer, a {@link LeadUnavailableException}.
     */
    private <T> Optional<T> call(ServiceClient.Request req, Class<T> type) {
        ServiceClient.Answer a;
        try {
            a = http().send(req);
        } catch (ServiceClient.NoAnswer e) {
            throw new LeadUnavailableException("lead-service unreachable: " + e.getMessage(), e);
        }
        if (a.status() == 204) {
            return Optional.empty();
        }
        if (a.ok()) {
            try {
                return Optional.of(a.read(type));
            } catch (RuntimeException e) {
                throw new LeadUnavailableException("lead-service answered " + req.method() + " " + a.uri().getPath()
                        + " with a body that is not a " + type.getSimpleName() + ": " + e.getMessage(), e);
            }
        }
        ServiceClient.Problem p = a.problem();
        if (a.status() >= 400 && a.status() < 500) {
            throw new LeadRefusedException(a.status(), p.field("code"), p.detail(), p.field("owner"));
        }
        throw new LeadUnavailableException("lead-service answered " + a.status() + ": " + p.detail(), null);
    }

    // ---- autonomous claiming (CLAIM)

    /**
     * Claims the oldest free, unblocked task that {@code agent} of {@code role} may take (a task naming another role
     * or assignee is skipped); empty when there is none. Retried with the same token: a retry returns the same claim.
     */
    public Optional<LeadTasks.Claim> claimNextAs(String team, String agent, String role, String leaseToken,
            Double leaseSeconds) {
        return claimNextAsWithToken(team, agent, role, leaseToken == null ? newLeaseToken() : leaseToken, leaseSeconds);
    }

    Optional<LeadTasks.Claim> claimNextAsWithToken(String team, String agent, String role, String leaseToken,
            Double leaseSeconds) {
        return call(postTo(team, "tasks/claim-next", new LeadTasks.ClaimRequest(agent, leaseToken, leaseSeconds, role),
                true), LeadTasks.Claim.class);
    }

    /** Claims task {@code id} for {@code agent} of {@code role} with a fresh lease token (idempotent on retry). */
    public LeadTasks.Claim claimAs(String team, String id, String agent, String role, Double leaseSeconds) {
        return claimAsWithToken(team, id, agent, role, newLeaseToken(), leaseSeconds);
    }

    LeadTasks.Claim claimAsWithToken(String team, String id, String agent, String role, String leaseToken,
            Double leaseSeconds) {
        return call(postTo(team, "tasks/" + ServiceClient.segment(id) + "/claim",
                new LeadTasks.ClaimRequest(agent, leaseToken, leaseSeconds, role), true), LeadTasks.Claim.class).orElseThrow();
    }

    /** Renews many leases of one team at once (a replica's heartbeat loop); idempotent, retried. */
    public LeadTasks.Renewal heartbeats(String team, List<LeadTasks.LeaseRef> leases, Double leaseSeconds) {
        return call(postTo(team, "tasks/heartbeats", new LeadTasks.HeartbeatsRequest(List.copyOf(leases), leaseSeconds), true),
                LeadTasks.Renewal.class).orElseThrow();
    }

    /**
     * Claim-next for many teammates of one team in one request ({@code POST …/tasks/claim-batch}):
     * agent → its claim, for the claimers that got one. Every claimer names its lease token, so a retry (on an
     * unreachable lead or a timeout) gives each the same task back, never a second one.
     */
    public Map<String, LeadTasks.Claim> claimBatch(String team, List<LeadTasks.BatchClaimer> claimers,
            Double leaseSeconds) {
        LeadTasks.ClaimBatch b = call(postTo(team, "tasks/claim-batch", new LeadTasks.ClaimBatchRequest(
                List.copyOf(claimers), leaseSeconds), true), LeadTasks.ClaimBatch.class).orElseThrow();
        Map<String, LeadTasks.Claim> out = new LinkedHashMap<>();
        for (LeadTasks.BatchClaim c : b.claims()) {
            out.put(c.agent(), c.claim());
        }
        return out;
    }
}
