package dev.cohort.core.toolrunner;

import dev.cohort.core.mcp.McpListRequest;
import dev.cohort.core.mcp.McpServerTools;
import dev.cohort.core.http.ServiceClient;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.retry.Sleeper;
import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Client of tool-runner-service's internal API, a {@link ServiceClient} (a plain {@code http://} runner is called on
 * the calling thread, with no hand-off; the protocol's Jackson mapper).
 *
 * <p>Every request this client makes is retryable under the services' retry policy ({@link ServiceClient}): a call
 * that got a {@code 503} (every execution slot of the runner stayed busy) or no answer (the runner is restarting) is
 * sent again with backoff until the budget is spent; only then is it a {@link ToolRunnerException} (which the tool
 * executor turns into a turn-ending infrastructure failure). A runner that has not answered yet is absent, not
 * restarting, and is tried only {@value ServiceClient#ATTEMPTS_WHEN_ABSENT} times. Retrying is safe: a tool call is
 * keyed by its call id (the runner records each id and answers a repeated one from its record, or joins the execution
 * still running, so a retry never runs a tool twice; a 503 is answered before anything is recorded or run); reading and
 * cancelling a background job are keyed by the job id and idempotent; assigning a team's workspace is an idempotent
 * {@code PUT}. Thread-safe; share one instance per service.
 *
 * <p>Replicas: the client may be given several base URLs (a comma-separated list, or a list), each a replica of the
 * runner on one database. A tool call retried on another replica keeps its call id: the replicas share the journal, so
 * a call that another replica had started is never run a second time (that replica answers that its outcome is
 * unknown).
 */
public final class ToolRunnerClient {

    private final ServiceClient http;

    /**
     * @param baseUrl        e.g. {@code http://127.0.0.1:8083}, or several replicas' URLs separated by commas
     * @param token          the runner's bearer token, or {@code null} when it has none
     * @param requestTimeout longest wait for one answer; must exceed the longest bash timeout the host allows
     */
    public ToolRunnerClient(String baseUrl, String token, Duration requestTimeout) {
        this(baseUrl, token, requestTimeout, ServiceClient.Retry.DEFAULT);
    }

    public ToolRunnerClient(String baseUrl, String token, Duration requestTimeout, ServiceClient.Retry retry) {
        this(baseUrl, token, requestTimeout, retry, Sleeper.REAL, InstantSource.system(),
                () -> ThreadLocalRandom.current().nextDouble());
    }

    /**
     * With the waiting made observable (tests): {@code sleeper} waits between attempts, {@code clock} measures the
     * budget, {@code random} in [0, 1) draws the jitter.
     */
    public ToolRunnerClient(String baseUrl, String token, Duration requestTimeout, ServiceClient.Retry retry,
            Sleeper sleeper, InstantSource clock, DoubleSupplier random) {
        this(ServiceClient.baseUrls(Objects.requireNonNull(baseUrl, "baseUrl")), token, requestTimeout, retry, sleeper,
                clock, random);
    }

    /** With the replicas' base URLs as a list (see the class comment); the first is tried first. */
    public ToolRunnerClient(List<String> baseUrls, String token, Duration requestTimeout, ServiceClient.Retry retry) {
        this(baseUrls, token, requestTimeout, retry, Sleeper.REAL, InstantSource.system(),
                () -> ThreadLocalRandom.current().nextDouble());
    }

    /** {@link #ToolRunnerClient(List, String, Duration, ServiceClient.Retry)} with the waiting made observable. */
    public ToolRunnerClient(List<String> baseUrls, String token, Duration requestTimeout, ServiceClient.Retry retry,
            Sleeper sleeper, InstantSource clock, DoubleSupplier random) {
        this.http = new ServiceClient("tool runner", baseUrls, token, requestTimeout, retry, sleeper, clock, random);
    }

    /** Runs tool {@code name}; a model-visible failure comes back in {@link ToolCallResult#error()}. */
    public ToolCallResult call(String name, ToolCallRequest request) {
        return send(ServiceClient.Request.post("internal/v1/tools/" + ServiceClient.segment(name), request, true))
                .read(ToolCallResult.class);
    }

    /**
     * The runner's catalogue of workspace tools ({@code GET /internal/v1/tools}), in its order.
     *
     * @throws ToolRunnerException when the runner did not answer after the retries, or answered something else
     */
    public List<ToolDescriptor> catalogue() {
        String body = send(ServiceClient.Request.get("internal/v1/tools")).text();
        try {
            return List.of(Json.MAPPER.readValue(body, ToolDescriptor[].class));
        } catch (IOException e) {
            throw new ToolRunnerException(0, "the tool runner's catalogue is not a list of tools: " + e.getMessage(), e);
        }
    }

    /**
     * The tools of a team's MCP servers ({@code POST /internal/v1/mcp/tools}), one entry per server in the request's
     * order; a server that is not running is started in the team's sandbox (a read: retried like one).
     *
     * @throws ToolRunnerException when the runner did not answer after the retries, or refused the request
     */
    public List<McpServerTools> mcpTools(McpListRequest request) {
        String body = send(ServiceClient.Request.post("internal/v1/mcp/tools", request, true)).text();
        try {
            return List.of(Json.MAPPER.readValue(body, McpServerTools[].class));
        } catch (IOException e) {
            throw new ToolRunnerException(0, "the tool runner's MCP tools are not a list of servers: " + e.getMessage(),
                    e);
        }
    }

    /** The state of background job {@code id}, or empty when the runner does not know it. */
    public Optional<BackgroundJob> backgroundJob(String id) {
        return jobOrEmpty(ServiceClient.Request.get("internal/v1/background/" + ServiceClient.segment(id)));
    }

    /** Cancels background job {@code id} (kills its process group); returns its state afterwards, empty if unknown. */
    public Optional<BackgroundJob> cancelBackgroundJob(String id) {
        return jobOrEmpty(ServiceClient.Request.delete("internal/v1/background/" + ServiceClient.segment(id)));
    }

    private Optional<BackgroundJob> jobOrEmpty(ServiceClient.Request req) {
        ServiceClient.Answer a = exchange(req);
        if (a.status() == 404) {
            return Optional.empty();
        }
        return Optional.of(checked(req, a).read(BackgroundJob.class));
    }

    /**
     * Asks the runner to check and prepare {@code workspace} (relative to its root, or absolute) as the workspace of
     * {@code team}, and to record it: the runner owns the rule ({@code workspace-roots}) because it is the only thing
     * that touches files. Returns the workspace's real path.
     *
     * @throws ToolRunnerException 400 when the runner refuses it ({@link ToolRunnerException#detail()} names the rule),
     *                             409 when the team already has another workspace, 0 when the runner did not answer
     */
    public String prepareTeamWorkspace(String team, String workspace) {
        ServiceClient.Answer a = send(ServiceClient.Request.put("internal/v1/teams/" + ServiceClient.segment(team)
                + "/workspace", Map.of("workspace", workspace)));
        try {
            return Json.MAPPER.readTree(a.text()).path("workspace").asText();
        } catch (IOException e) {
            throw new ToolRunnerException(0, "the tool runner's answer about team " + team + "'s workspace is not JSON", e);
        }
    }

    private ServiceClient.Answer send(ServiceClient.Request req) {
        return checked(req, exchange(req));
    }

    private ServiceClient.Answer exchange(ServiceClient.Request req) {
        try {
            return http.send(req);
        } catch (ServiceClient.NoAnswer e) {
            throw new ToolRunnerException(0, e.getMessage(), e.getCause() == null ? e : e.getCause());
        }
    }

    /** A 2xx answer as it is; any other is a {@link ToolRunnerException} with the runner's detail. */
    private ServiceClient.Answer checked(ServiceClient.Request req, ServiceClient.Answer a) {
        if (a.ok()) {
            return a;
        }
        String detail = a.problem().detail();
        if (a.status() == 503) {
            return fail(new ToolRunnerException(503, http.busyFor(a) + ": " + detail, detail, null));
        }
        return fail(new ToolRunnerException(a.status(), "tool runner answered " + a.status() + " to " + req.method()
                + " " + a.uri().getPath() + ": " + detail, detail, null));
    }

    private static ServiceClient.Answer fail(ToolRunnerException e) {
        throw e;
    }
}
