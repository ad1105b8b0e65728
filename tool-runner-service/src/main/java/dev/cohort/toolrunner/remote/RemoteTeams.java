package dev.cohort.toolrunner.remote;

import dev.cohort.core.mcp.McpListRequest;
import dev.cohort.core.mcp.McpServerTools;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.toolrunner.BackgroundJob;
import dev.cohort.core.toolrunner.ToolCallRequest;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.sandbox.kubernetes.AgentSandboxes;
import dev.cohort.toolrunner.sandbox.kubernetes.SandboxEndpoint;
import dev.cohort.toolrunner.sandbox.kubernetes.SandboxLifecycleException;
import io.quarkus.logging.Log;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The control half's side of the team sandboxes on Kubernetes: each team's calls run in its own sandbox pod, reached
 * over HTTP at the Sandbox's stable name with the team's token ({@link TeamTokens}).
 *
 * <p>A call: the team's sandbox is made ready if this replica does not know it ready (claim from the warm pool, resume
 * if paused, wait for Ready) and bound to the team ({@code PUT /internal/v1/sandbox/binding}) → the call is sent as
 * the runner's own {@code POST /internal/v1/tools/{name}} → the sandbox's answer is the result. What is never done:
 * sending a call twice. A call is sent again only when the sandbox provably did not run it: the connection was
 * refused (no pod behind the name: it is resolved again), or the agent answered 401 (restarted, so unbound: it is
 * bound again). A connection lost after the call was sent is answered "outcome unknown" ({@code sandbox-stopped}).
 *
 * <p>Background jobs run in the sandbox, which reaches no broker: {@link #announce} asks each sandbox this replica
 * serves for jobs not yet announced, hands them to the {@link Announcer} and acknowledges each once it is published.
 * {@link #pauseIdle} pauses a sandbox without calls or running jobs for the idle timeout (its pod goes, its workspace
 * volume stays); its next call resumes it.
 */
public final class RemoteTeams implements AutoCloseable {

    /** Publishes what the sandboxes report (the control half's Kafka side). */
    public interface Announcer {
        /** A job seen running for the first time by this replica (its start event). */
        void started(BackgroundJob job);

        /** A finished job: completes once its message is published, so the sandbox may forget it. */
        CompletionStage<?> finished(BackgroundJob job);
    }

    /**
     * @param callTimeout how long a call may take in the sandbox (the longest bash timeout and a margin)
     * @param idleTimeout a sandbox without calls or running jobs for this long is paused
     */
    public record Settings(Duration callTimeout, Duration idleTimeout) {
        public Settings {
            Objects.requireNonNull(callTimeout, "callTimeout");
            Objects.requireNonNull(idleTimeout, "idleTimeout");
        }
    }

    /** What this replica knows of one team's sandbox. */
    private static final class Team {
        final String name;
        SandboxEndpoint endpoint;
        boolean bound;
        boolean paused;
        int inFlight;
        boolean jobsRunning;
        long lastUsedNanos = System.nanoTime();
        final Set<String> announcedStarts = ConcurrentHashMap.newKeySet();

        Team(String name) {
            this.name = name;
        }
    }

    /** A sandbox's {@code GET /internal/v1/sandbox/notices}. */
    record Notices(List<BackgroundJob> running, List<BackgroundJob> finished) {
    }

    private final AgentSandboxes sandboxes;
    private final TeamTokens tokens;
    private final Settings settings;
    private final Announcer announcer;
    /**
     * {@code java.net.http}, not core's {@code DirectHttp}: DirectHttp sends a request again when a reused connection
     * fails before the answer's first byte, which for a call whose sandbox died mid-run could run it twice;
     * {@code HttpClient} retries no {@code POST} (its {@code enableAllMethodRetry} is off).
     */
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final Map<String, Team> teams = new ConcurrentHashMap<>();

    public RemoteTeams(AgentSandboxes sandboxes, TeamTokens tokens, Settings settings, Announcer announcer) {
        this.sandboxes = Objects.requireNonNull(sandboxes, "sandboxes");
        this.tokens = Objects.requireNonNull(tokens, "tokens");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.announcer = Objects.requireNonNull(announcer, "announcer");
    }

    /** Runs tool {@code name} in the team's sandbox; failures of the sandbox come back as the call's error. */
    public ToolCallResult call(String name, ToolCallRequest req) {
        Exchange x = post(req.team(), "internal/v1/tools/" + URLEncoder.encode(name, StandardCharsets.UTF_8),
                Json.write(req), "call=" + req.callId());
        return x.failure() != null ? ToolCallResult.failure(x.failure(), 0) : Json.read(x.body(), ToolCallResult.class);
    }

    /**
     * The tools of the team's MCP servers, listed in the team's sandbox (which starts a server not running there); a
     * sandbox that cannot be reached is an entry with the error for each server.
     */
    public List<McpServerTools> mcpTools(McpListRequest req) {
        Exchange x = post(req.team(), "internal/v1/mcp/tools", Json.write(req), "mcp-tools");
        if (x.failure() != null) {
            return req.servers().stream().map(s -> new McpServerTools(s.name(), null, 0, "MCP server '" + s.name()
                    + "': " + x.failure())).toList();
        }
        return List.of(Json.read(x.body(), McpServerTools[].class));
    }

    /** The sandbox's 200 answer, or why there is none (for the caller's error). */
    private record Exchange(String body, String failure) {
        static Exchange failed(String why) {
            return new Exchange(null, why);
        }
    }

    /**
     * {@code POST path} in the team's sandbox, made ready and bound first. Sent again only when the sandbox provably
     * did not get it (no connection, or 401 from an agent that restarted unbound).
     */
    private Exchange post(String team, String path, String body, String what) {
        Team t = teams.computeIfAbsent(team, Team::new);
        enter(t);
        try {
            for (int attempt = 1; ; attempt++) {
                SandboxEndpoint ep;
                try {
                    ep = ready(t);
                } catch (SandboxLifecycleException e) {
                    Log.warnf("team=%s %s: no sandbox: %s", team, what, e.getMessage());
                    return Exchange.failed("the team's sandbox could not be made ready, so the call did not run: "
                            + e.getMessage() + " (rule: sandbox-unavailable). Retry in a moment.");
                }
                HttpResponse<String> r;
                try {
                    r = send(t, ep, "POST", path, body, settings.callTimeout());
                } catch (ConnectException e) {
                    // nothing was sent: no pod answers at that name (it is being replaced); resolve it again
                    forget(t);
                    if (attempt < 3) {
                        continue;
                    }
                    return Exchange.failed("the team's sandbox did not accept a connection, so the call did not run"
                            + " (rule: sandbox-unreachable). Retry in a moment.");
                } catch (IOException e) {
                    forget(t);
                    Log.warnf("team=%s %s: the sandbox stopped answering mid-call: %s", team, what, e.toString());
                    return Exchange.failed("the team's sandbox stopped answering during the call; its outcome is"
                            + " unknown and it is not run again (rule: sandbox-stopped). Check the workspace before"
                            + " retrying with a new call.");
                }
                if (r.statusCode() == 401 && attempt < 3) {
                    // the agent refused before running anything: it restarted and lost its binding
                    synchronized (t) {
                        t.bound = false;
                    }
                    continue;
                }
                if (r.statusCode() == 200) {
                    return new Exchange(r.body(), null);
                }
                return Exchange.failed("the team's sandbox refused the call (HTTP " + r.statusCode() + "): "
                        + abbreviate(r.body()) + " (rule: sandbox-refused)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Exchange.failed("the call was interrupted (rule: interrupted)");
        } finally {
            leave(t);
        }
    }

    /**
     * Asks each ready sandbox for jobs to announce and announces them: starts once per replica, ends until the
     * sandbox has the acknowledgement (a lost acknowledgement repeats the message, with the same id).
     */
    public void announce() {
        for (Team t : teams.values()) {
            SandboxEndpoint ep;
            synchronized (t) {
                ep = t.bound && !t.paused ? t.endpoint : null;
            }
            if (ep == null) {
                continue;
            }
            try {
                HttpResponse<String> r = send(t, ep, "GET", "internal/v1/sandbox/notices", null, Duration.ofSeconds(10));
                if (r.statusCode() != 200) {
                    continue;
                }
                Notices n = Json.MAPPER.readValue(r.body(), new TypeReference<Notices>() { });
                synchronized (t) {
                    t.jobsRunning = !n.running().isEmpty();
                }
                for (BackgroundJob j : n.running()) {
                    if (t.announcedStarts.add(j.id())) {
                        announcer.started(j);
                    }
                }
                for (BackgroundJob j : n.finished()) {
                    if (t.announcedStarts.add(j.id())) {
                        announcer.started(j);
                    }
                    announcer.finished(j).whenComplete((v, e) -> {
                        if (e == null) {
                            acknowledge(t, ep, j.id());
                        }
                    });
                }
            } catch (IOException e) {
                Log.debugf("team=%s: notices not read: %s", t.name, e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Pauses the sandboxes without a call or a running job for the idle timeout; returns the teams paused. */
    public List<String> pauseIdle() {
        long cutoff = System.nanoTime() - settings.idleTimeout().toNanos();
        List<String> paused = new ArrayList<>();
        for (Team t : teams.values()) {
            synchronized (t) {
                if (t.paused || t.endpoint == null || t.inFlight > 0 || t.jobsRunning || t.lastUsedNanos - cutoff > 0) {
                    continue;
                }
                try {
                    sandboxes.pause(t.name);
                    t.paused = true;
                    t.bound = false;
                    t.endpoint = null;
                    paused.add(t.name);
                    Log.infof("team=%s: sandbox paused after %s without calls", t.name, settings.idleTimeout());
                } catch (SandboxLifecycleException e) {
                    Log.warnf("team=%s: sandbox not paused: %s", t.name, e.getMessage());
                }
            }
        }
        return paused;
    }

    private void acknowledge(Team t, SandboxEndpoint ep, String id) {
        try {
            send(t, ep, "POST", "internal/v1/sandbox/notices/" + URLEncoder.encode(id, StandardCharsets.UTF_8), null,
                    Duration.ofSeconds(10));
        } catch (IOException e) {
            Log.debugf("team=%s: %s not acknowledged yet: %s", t.name, id, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The team's sandbox, ready and bound: claimed (or resumed) and waited for when this replica does not know it. */
    private SandboxEndpoint ready(Team t) throws InterruptedException {
        synchronized (t) {
            if (t.endpoint == null) {
                sandboxes.claim(t.name);
                try {
                    sandboxes.resume(t.name); // paused by this or another replica; a no-op on a running one
                } catch (SandboxLifecycleException e) {
                    if (e.reason() != SandboxLifecycleException.Reason.NOT_FOUND) {
                        throw e;
                    }
                    // not bound yet: a sandbox the warm pool hands over is running
                }
                t.endpoint = sandboxes.awaitReady(t.name);
                t.paused = false;
                t.bound = false;
            }
            if (!t.bound) {
                bind(t);
            }
            return t.endpoint;
        }
    }

    private void bind(Team t) throws InterruptedException {
        String body = Json.write(Map.of("team", t.name, "token", tokens.of(t.name)));
        HttpResponse<String> r;
        try {
            r = send(null, t.endpoint, "PUT", "internal/v1/sandbox/binding", body, Duration.ofSeconds(10));
        } catch (IOException e) {
            String where = "sandbox " + t.endpoint.sandbox();
            t.endpoint = null;
            throw new SandboxLifecycleException(SandboxLifecycleException.Reason.API_ERROR, t.name, where,
                    "its agent did not answer the binding: " + e.getMessage(), e);
        }
        if (r.statusCode() != 204) {
            String where = "sandbox " + t.endpoint.sandbox();
            t.endpoint = null;
            throw new SandboxLifecycleException(SandboxLifecycleException.Reason.CONFLICT, t.name, where,
                    "refused the binding (HTTP " + r.statusCode() + "): " + abbreviate(r.body()), null);
        }
        t.bound = true;
    }

    private HttpResponse<String> send(Team t, SandboxEndpoint ep, String method, String path, String body,
            Duration timeout) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://" + ep.host() + ":" + ep.port() + "/" + path))
                .timeout(timeout).header("Content-Type", "application/json");
        if (t != null) {
            b.header("Authorization", "Bearer " + tokens.of(t.name));
        }
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private void forget(Team t) {
        synchronized (t) {
            t.endpoint = null;
            t.bound = false;
        }
    }

    private static void enter(Team t) {
        synchronized (t) {
            t.inFlight++;
            t.lastUsedNanos = System.nanoTime();
        }
    }

    private static void leave(Team t) {
        synchronized (t) {
            t.inFlight--;
            t.lastUsedNanos = System.nanoTime();
        }
    }

    private static String abbreviate(String s) {
        return s == null ? "" : s.length() <= 500 ? s : s.substring(0, 500) + "…";
    }

    @Override
    public void close() {
        http.close();
    }
}
