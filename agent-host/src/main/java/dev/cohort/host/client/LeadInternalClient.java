package dev.cohort.host.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.ApprovalGateway;
import dev.cohort.core.protocol.Json;
import io.quarkus.rest.client.reactive.QuarkusRestClientBuilder;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.client.ClientRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ProcessingException;
import java.net.URI;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;
import org.eclipse.microprofile.rest.client.ext.ResponseExceptionMapper;

/**
 * The lead's internal API for other services (teammates): the board ({@code /internal/v1/teams/{team}/tasks}: list,
 * get, create, claim, claim-next, complete, release, heartbeat) and approvals of teammates' tool calls
 * ({@code /internal/v1/teams/{team}/approvals}: {@link #checkApproval}, behind {@link RemoteApprovalGateway}). The
 * acting agent is named in each call; the lead trusts the caller because it holds {@code cohort.internal.token}.
 *
 * <p>Configuration: {@code cohort.lead-internal.url} (lead-service's base URL; a service sets it to
 * {@code ${COHORT_LEAD_URL:...}}, which {@code cohort up} provides) and {@code cohort.internal.token} (env {@code COHORT_INTERNAL_TOKEN}; unset = no header, for local runs). Both are read on
 * first use, so a service that never calls the lead needs neither.
 *
 * <p>Failures: a 4xx is a {@link LeadRefusedException} (never retried); an unreachable lead, a 5xx or a timeout is a
 * {@link LeadUnavailableException} or a fault-tolerance {@link TimeoutException}. Idempotent calls are retried
 * ({@code @Retry}: 3 retries, 200 ms apart with jitter, only on those failures); every call is bounded
 * ({@code @Timeout}). {@code claim} and {@code claimNext} are idempotent because the client sends a lease token (its
 * own when the caller has none): a retried claim returns the same claim, never a second task. {@code create} and
 * {@code release} are not retried. Override per method with MicroProfile Fault Tolerance config, e.g.
 * {@code dev.cohort.host.client.LeadInternalClient/list/Retry/maxRetries=5}.
 */
@ApplicationScoped
public class LeadInternalClient {

    /** Connecting to a live lead is fast; a longer wait means it is down, and the retry is the better use of time. */
    static final long CONNECT_TIMEOUT_MS = 2_000;
    /** Above every board operation (single SQL statements), below the fault-tolerance timeout. */
    static final long READ_TIMEOUT_MS = 8_000;

    private volatile LeadInternalRestClient rest;

    /**
     * The key of the lead's base URL. Not under {@code cohort.lead.*}: lead-service maps that prefix
     * ({@code LeadConfig}) and would refuse an unknown key in it, and the lead's own tests use this client.
     */
    public static final String URL_KEY = "cohort.lead-internal.url";

    /** The CDI bean: configured from {@link #URL_KEY} and {@code cohort.internal.token} on first use. */
    LeadInternalClient() {
    }

    /** A client of the lead at {@code url} with this token (none: no header), without the bean's retries (tests). */
    LeadInternalClient(URI url, Optional<String> token) {
        this.rest = build(url, token);
    }

    /** The REST client, built on first use from the config of that moment. */
    private LeadInternalRestClient rest() {
        LeadInternalRestClient r = rest;
        if (r == null) {
            synchronized (this) {
                r = rest;
                if (r == null) {
                    var config = ConfigProvider.getConfig();
                    String url = config.getOptionalValue(URL_KEY, String.class).filter(u -> !u.isBlank())
                            .orElseThrow(() -> new IllegalStateException(URL_KEY + " is not set: the base URL of lead-service,"
                                    + " e.g. " + URL_KEY + "=${COHORT_LEAD_URL:http://127.0.0.1:8080}"));
                    rest = r = build(URI.create(url), config.getOptionalValue("cohort.internal.token", String.class));
                }
            }
        }
        return r;
    }

    private static LeadInternalRestClient build(URI url, Optional<String> token) {
        QuarkusRestClientBuilder b = QuarkusRestClientBuilder.newBuilder().baseUri(url)
                .connectTimeout(CONNECT_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .readTimeout(READ_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .register(new ErrorMapper());
        token.filter(t -> !t.isBlank()).ifPresent(t -> b.register((ClientRequestFilter) ctx ->
                ctx.getHeaders().putSingle(HttpHeaders.AUTHORIZATION, "Bearer " + t)));
        return b.build(LeadInternalRestClient.class);
    }

    /** The team's board, in id order. */
    @Retry(maxRetries = 3, delay = 200, jitter = 100, retryOn = {LeadUnavailableException.class, TimeoutException.class})
    @Timeout(value = 10, unit = ChronoUnit.SECONDS)
    public List<LeadTasks.Task> list(String team) {
        return call(() -> rest().list(team));
    }

    /** One task; an unknown one is a {@link LeadRefusedException} with code {@code not-found}. */
    @Retry(maxRetries = 3, delay = 200, jitter = 100, retryOn = {LeadUnavailableException.class, TimeoutException.class})
    @Timeout(value = 10, unit = ChronoUnit.SECONDS)
    public LeadTasks.Task get(String team, String id) {
        return call(() -> rest().get(team, id));
    }

    /** Creates a task as {@code agent}. Not retried: a retry after a lost answer would create a second task. */
    @Timeout(value = 10, unit = ChronoUnit.SECONDS)
    public LeadTasks.Task create(String team, String agent, String subject, String description, List<String> blockedBy) {
        return call(() -> rest().create(team, new LeadTasks.CreateRequest(agent, subject, description, blockedBy)));
    }

    /**
     * Claims task {@code id} for {@code agent} with {@code leaseToken} ({@code null}: a fresh one), for
     * {@code leaseSeconds} ({@code null}: the lead's default).
     */
    public LeadTasks.Claim claim(String team, String id, String agent, String leaseToken, Double leaseSeconds) {
        return claimWithToken(team, id, agent, leaseToken == null ? newLeaseToken() : leaseToken, leaseSeconds);
    }

    /** {@link #claim}, with the token fixed before the first attempt so every retry is the same claim. */
    @Retry(maxRetries = 3, delay = 200, jitter = 100, retryOn = {LeadUnavailableException.class, TimeoutException.class})
    @Timeout(value = 10, unit = ChronoUnit.SECONDS)
    LeadTasks.Claim claimWithToken(String team, String id, String agent, String leaseToken, Double leaseSeconds) {
        return call(() -> rest().claim(team, id, new LeadTasks.ClaimRequest(agent, leaseToken, leaseSeconds)));
    }

    /** Claims the oldest free, unblocked task; empty when there is none. */
    public Optional<LeadTasks.Claim> claimNext(String team, String agent, String leaseToken, Double leaseSeconds) {
        return claimNextWithToken(team, agent, leaseToken == null ? newLeaseToken() : leaseToken, leaseSeconds);
    }

    @Retry(maxRetries = 3, delay = 200, jitter = 100, retryOn = {LeadUnavailableException.class, TimeoutException.class})
    @Timeout(value = 10, unit = ChronoUnit.SECONDS)
    Optional<LeadTasks.Claim> claimNextWithToken(String team, String agent, String leaseToken, Double leaseSeconds) {
        return call(() -> {
            try (Response r = rest().claimNext(team, new LeadTasks.ClaimRequest(agent, leaseToken, leaseSeconds))) {
                return r.getStatus() == 204 ? Optional.empty() : Optional.of(r.readEntity(LeadTasks.Claim.class));
            }
        });
    }

    /** Completes a held task; completing it again answers the same completion with {@code repeated = true}. */
    @Retry(maxRetries = 3, delay = 200, jitter = 100, retryOn = {LeadUnavailableException.class, TimeoutException.class})
    @Timeout(value = 10, unit = ChronoUnit.SECONDS)
    public LeadTasks.Completion complete(String team, String id, String agent, String leaseToken, String result) {
        return call(() -> rest().complete(team, id, new LeadTasks.CompleteRequest(agent, leaseToken, result)));
    }

    /** Gives a held task back. Not retried: a second release after a lost answer is refused (no longer the holder). */
    @Timeout(value = 10, unit = ChronoUnit.SECONDS)
    public LeadTasks.Task release(String team, String id, String agent, String leaseToken) {
        return call(() -> rest().release(team, id, new LeadTasks.ReleaseRequest(agent, leaseToken)));
    }

    /** Renews a live lease; a lost lease is a {@link LeadRefusedException} ({@code lease-expired}, ...): stop working. */
    @Retry(maxRetries = 3, delay = 200, jitter = 100, retryOn = {LeadUnavailableException.class, TimeoutException.class})
    @Timeout(value = 10, unit = ChronoUnit.SECONDS)
    public LeadTasks.Task heartbeat(String team, String id, String agent, String leaseToken, Double leaseSeconds) {
        return call(() -> rest().heartbeat(team, id, new LeadTasks.HeartbeatRequest(agent, leaseToken, leaseSeconds)));
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
    @Retry(maxRetries = 3, delay = 200, jitter = 100, retryOn = {LeadUnavailableException.class, TimeoutException.class})
    @Timeout(value = 10, unit = ChronoUnit.SECONDS)
    public ApprovalGateway.Decision checkApproval(String team, ApprovalGateway.Request request) {
        LeadApprovals.Answer a = call(() -> rest().checkApproval(team, new LeadApprovals.CheckRequest(request.agent(),
                request.turnId(), request.callId(), request.tool(), request.args(), request.reason(),
                Math.max(1, (long) Math.ceil(request.timeout().toMillis() / 1000.0)))));
        return decision(a);
    }

    /**
     * Of the approvals of {@code team} with these ids, those answered or past their expiry: for a host's sweep
     * ({@code AgentProgram.settled}), the safety net under the lead's {@code approval_resolved}. Read-only, retried.
     */
    @Retry(maxRetries = 3, delay = 200, jitter = 100, retryOn = {LeadUnavailableException.class, TimeoutException.class})
    @Timeout(value = 10, unit = ChronoUnit.SECONDS)
    public Set<String> settledApprovals(String team, Collection<String> approvalIds) {
        if (approvalIds.isEmpty()) {
            return Set.of();
        }
        LeadApprovals.Settled s = call(() -> rest().settledApprovals(team,
                new LeadApprovals.SettledRequest(List.copyOf(approvalIds))));
        return s == null || s.settled() == null ? Set.of() : Set.copyOf(s.settled());
    }

    /**
     * Turn {@code turnId} of teammate {@code agent} ended: the lead cancels the approvals it still waited for, so no
     * person is asked to answer them. Idempotent (a repeat cancels nothing), so it is retried; returns the ids cancelled.
     */
    @Retry(maxRetries = 3, delay = 200, jitter = 100, retryOn = {LeadUnavailableException.class, TimeoutException.class})
    @Timeout(value = 10, unit = ChronoUnit.SECONDS)
    public List<String> cancelApprovalsOfTurn(String team, String agent, String turnId, String reason) {
        LeadApprovals.Cancelled c = call(() -> rest().cancelApprovals(team, new LeadApprovals.CancelRequest(agent, turnId, reason)));
        return c == null || c.cancelled() == null ? List.of() : List.copyOf(c.cancelled());
    }

    /** The team's permission mode, which its teammates follow. Read-only, retried. */
    @Retry(maxRetries = 3, delay = 200, jitter = 100, retryOn = {LeadUnavailableException.class, TimeoutException.class})
    @Timeout(value = 10, unit = ChronoUnit.SECONDS)
    public LeadTeam team(String team) {
        return call(() -> rest().team(team));
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

    /** Runs one request; an I/O failure (refused connection, read timeout) becomes {@link LeadUnavailableException}. */
    private static <T> T call(Supplier<T> request) {
        try {
            return request.get();
        } catch (ProcessingException e) {
            Throwable cause = e.getCause() instanceof RuntimeException r && isOurs(r) ? r : null;
            if (cause != null) {
                throw (RuntimeException) cause;
            }
            throw new LeadUnavailableException("lead-service unreachable: " + e.getMessage(), e);
        }
    }

    private static boolean isOurs(RuntimeException e) {
        return e instanceof LeadRefusedException || e instanceof LeadUnavailableException;
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

    @Retry(maxRetries = 3, delay = 200, jitter = 100, retryOn = {LeadUnavailableException.class, TimeoutException.class})
    @Timeout(value = 10, unit = ChronoUnit.SECONDS)
    Optional<LeadTasks.Claim> claimNextAsWithToken(String team, String agent, String role, String leaseToken,
            Double leaseSeconds) {
        return call(() -> {
            try (Response r = rest().claimNext(team, new LeadTasks.ClaimRequest(agent, leaseToken, leaseSeconds, role))) {
                return r.getStatus() == 204 ? Optional.empty() : Optional.of(r.readEntity(LeadTasks.Claim.class));
            }
        });
    }

    /** Claims task {@code id} for {@code agent} of {@code role} with a fresh lease token (idempotent on retry). */
    public LeadTasks.Claim claimAs(String team, String id, String agent, String role, Double leaseSeconds) {
        return claimAsWithToken(team, id, agent, role, newLeaseToken(), leaseSeconds);
    }

    @Retry(maxRetries = 3, delay = 200, jitter = 100, retryOn = {LeadUnavailableException.class, TimeoutException.class})
    @Timeout(value = 10, unit = ChronoUnit.SECONDS)
    LeadTasks.Claim claimAsWithToken(String team, String id, String agent, String role, String leaseToken,
            Double leaseSeconds) {
        return call(() -> rest().claim(team, id, new LeadTasks.ClaimRequest(agent, leaseToken, leaseSeconds, role)));
    }

    /** Renews many leases of one team at once (a replica's heartbeat loop); idempotent, retried. */
    @Retry(maxRetries = 3, delay = 200, jitter = 100, retryOn = {LeadUnavailableException.class, TimeoutException.class})
    @Timeout(value = 10, unit = ChronoUnit.SECONDS)
    public LeadTasks.Renewal heartbeats(String team, List<LeadTasks.LeaseRef> leases, Double leaseSeconds) {
        return call(() -> rest().heartbeats(team, new LeadTasks.HeartbeatsRequest(List.copyOf(leases), leaseSeconds)));
    }

    /** 4xx → {@link LeadRefusedException} with the problem's detail and code; 5xx → {@link LeadUnavailableException}. */
    static final class ErrorMapper implements ResponseExceptionMapper<RuntimeException> {
        @Override
        public RuntimeException toThrowable(Response r) {
            int status = r.getStatus();
            String body = r.hasEntity() ? r.readEntity(String.class) : "";
            JsonNode p = problem(body);
            String detail = p.path("detail").asText(p.path("title").asText(body.isBlank() ? "no detail" : body));
            if (status >= 400 && status < 500) {
                return new LeadRefusedException(status, p.hasNonNull("code") ? p.get("code").asText() : null, detail,
                        p.hasNonNull("owner") ? p.get("owner").asText() : null);
            }
            return new LeadUnavailableException("lead-service answered " + status + ": " + detail, null);
        }

        private static JsonNode problem(String body) {
            try {
                JsonNode n = Json.MAPPER.readTree(body);
                return n == null ? Json.MAPPER.createObjectNode() : n;
            } catch (Exception e) {
                return Json.MAPPER.createObjectNode();
            }
        }
    }

    /**
     * Claim-next for many teammates of one team in one request ({@code POST …/tasks/claim-batch}):
     * agent → its claim, for the claimers that got one. Every claimer names its lease token, so a retry (on an
     * unreachable lead or a timeout) gives each the same task back, never a second one.
     */
    @Retry(maxRetries = 3, delay = 200, jitter = 100, retryOn = {LeadUnavailableException.class, TimeoutException.class})
    @Timeout(value = 10, unit = ChronoUnit.SECONDS)
    public Map<String, LeadTasks.Claim> claimBatch(String team, List<LeadTasks.BatchClaimer> claimers,
            Double leaseSeconds) {
        LeadTasks.ClaimBatch b = call(() -> rest().claimBatch(team, new LeadTasks.ClaimBatchRequest(List.copyOf(claimers),
                leaseSeconds)));
        Map<String, LeadTasks.Claim> out = new LinkedHashMap<>();
        for (LeadTasks.BatchClaim c : b.claims()) {
            out.put(c.agent(), c.claim());
        }
        return out;
    }
}
