package dev.cohort.core.toolrunner;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Client of tool-runner-service's internal API (java.net.http + the protocol's Jackson mapper).
 *
 * <p>A call that fails before an answer arrives (connection refused or reset) is retried a few times: the runner
 * records every call id and answers a repeated one from its record, so a retry never runs a tool twice.
 * Thread-safe; share one instance per service.
 */
public final class ToolRunnerClient {
    /** Attempts for a call that got no answer; enough to ride over a runner restart of a second or two. */
    static final int DEFAULT_ATTEMPTS = 3;

    private final URI base;
    private final String token;
    private final HttpClient http;
    private final Duration requestTimeout;
    private final int attempts;
    private final Duration retryDelay;

    /**
     * @param baseUrl        e.g. {@code http://127.0.0.1:8083}
     * @param token          the runner's bearer token, or {@code null} when it has none
     * @param requestTimeout longest wait for one answer; must exceed the longest bash timeout the host allows
     */
    public ToolRunnerClient(String baseUrl, String token, Duration requestTimeout) {
        this(baseUrl, token, requestTimeout, DEFAULT_ATTEMPTS, Duration.ofMillis(300));
    }

    public ToolRunnerClient(String baseUrl, String token, Duration requestTimeout, int attempts, Duration retryDelay) {
        String b = Objects.requireNonNull(baseUrl, "baseUrl");
        this.base = URI.create(b.endsWith("/") ? b : b + "/");
        this.token = token == null || token.isBlank() ? null : token;
        this.requestTimeout = requestTimeout;
        this.attempts = Math.max(1, attempts);
        this.retryDelay = retryDelay;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    /** Runs tool {@code name}; a model-visible failure comes back in {@link ToolCallResult#error()}. */
    public ToolCallResult call(String name, ToolCallRequest request) {
        HttpRequest.Builder rb = request("internal/v1/tools/" + enc(name))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(request)));
        return Json.read(send(rb.build()).body(), ToolCallResult.class);
    }

    /** The state of background job {@code id}, or empty when the runner does not know it. */
    public Optional<BackgroundJob> backgroundJob(String id) {
        HttpResponse<String> r = sendAllowing404(request("internal/v1/background/" + enc(id)).GET().build());
        return r.statusCode() == 404 ? Optional.empty() : Optional.of(Json.read(r.body(), BackgroundJob.class));
    }

    /** Cancels background job {@code id} (kills its process group); returns its state afterwards, empty if unknown. */
    public Optional<BackgroundJob> cancelBackgroundJob(String id) {
        HttpResponse<String> r = sendAllowing404(request("internal/v1/background/" + enc(id)).DELETE().build());
        return r.statusCode() == 404 ? Optional.empty() : Optional.of(Json.read(r.body(), BackgroundJob.class));
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
        HttpRequest.Builder rb = request("internal/v1/teams/" + enc(team) + "/workspace")
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(Json.write(java.util.Map.of("workspace", workspace))));
        try {
            return Json.MAPPER.readTree(send(rb.build()).body()).path("workspace").asText();
        } catch (IOException e) {
            throw new ToolRunnerException(0, "the tool runner's answer about team " + team + "'s workspace is not JSON", e);
        }
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(requestTimeout)
                .header("Accept", "application/json");
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return b;
    }

    private HttpResponse<String> sendAllowing404(HttpRequest req) {
        HttpResponse<String> r = exchange(req);
        if (r.statusCode() == 404 || r.statusCode() / 100 == 2) {
            return r;
        }
        throw failure(req, r);
    }

    private HttpResponse<String> send(HttpRequest req) {
        HttpResponse<String> r = exchange(req);
        if (r.statusCode() / 100 != 2) {
            throw failure(req, r);
        }
        return r;
    }

    private HttpResponse<String> exchange(HttpRequest req) {
        IOException last = null;
        for (int i = 1; i <= attempts; i++) {
            try {
                return http.send(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            } catch (IOException e) {
                last = e;
                if (i < attempts) {
                    sleep(retryDelay.multipliedBy(i));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ToolRunnerException(0, "interrupted while calling the tool runner at " + req.uri(), e);
            }
        }
        throw new ToolRunnerException(0, "tool runner at " + req.uri() + " did not answer after " + attempts
                + " attempts: " + last, last);
    }

    private static ToolRunnerException failure(HttpRequest req, HttpResponse<String> r) {
        String detail = r.body();
        try {
            JsonNode n = Json.MAPPER.readTree(r.body());
            if (n != null && n.hasNonNull("detail")) {
                detail = n.get("detail").asText();
            } else if (n != null && n.hasNonNull("title")) {
                detail = n.get("title").asText();
            }
        } catch (IOException | RuntimeException ignored) {
            // not JSON: keep the raw body
        }
        return new ToolRunnerException(r.statusCode(), "tool runner answered " + r.statusCode() + " to "
                + req.method() + " " + req.uri().getPath() + ": " + detail, detail, null);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
