package dev.cohort.core.toolrunner;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.http.DirectHttp;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.retry.RetryPolicy;
import dev.cohort.core.retry.Sleeper;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Client of tool-runner-service's internal API ({@link DirectHttp}: a plain {@code http://} runner is called on the
 * calling thread, with no hand-off; the protocol's Jackson mapper).
 *
 * <p>A call that got a {@code 503} (every execution slot of the runner stayed busy) or no answer (connection refused
 * or reset: the runner is restarting) is retried with capped exponential backoff and jitter ({@link RetryPolicy}),
 * honouring the runner's {@code Retry-After}, until a total time budget is spent; only then is it a
 * {@link ToolRunnerException} (which the tool executor turns into a turn-ending infrastructure failure). A runner
 * that has not answered this client yet, or not since a call gave up on it, is not restarting but absent (not started,
 * a wrong URL, down for good): a call that gets no answer from it is tried only {@value #ATTEMPTS_WHEN_ABSENT} times,
 * so that every turn does not wait out the budget once per call, and a misconfiguration shows at once.
 * Retrying is safe for every request this client makes: a tool call is keyed by its call id (the runner records each
 * id and answers a repeated one from its record, or joins the execution still running, so a retry never runs a tool
 * twice; a 503 is answered before anything is recorded or run); reading and cancelling a background job are keyed by
 * the job id and idempotent; assigning a team's workspace is an idempotent {@code PUT}. A request that is neither must
 * be sent with {@code retryable = false}. Thread-safe; share one instance per service.
 *
 * <p>Replicas: the client may be given several base URLs (a comma-separated list, or a list), each a replica of the
 * runner on one database. It sends every request to one of them, the one that answered last (the first at the start);
 * when that one does not answer, the next attempt, after the same backoff and within the same budget, goes to the next
 * replica in the list, and the client stays there while it answers. A tool call retried on another replica keeps its
 * call id: the replicas share the journal, so a call that another replica had started is never run a second time
 * (that replica answers that its outcome is unknown). One URL behaves exactly as before.
 */
public final class ToolRunnerClient {

    /**
     * How unanswered and busy calls are retried.
     *
     * @param firstDelay  the first backoff delay (200 ms: a busy slot usually frees within a tool call's time)
     * @param maxDelay    the cap of one computed delay (5 s: a waiting turn notices a recovered runner soon)
     * @param budget      total time from the first attempt after which no retry starts (30 s: rides over a runner
     *                    JVM restart, 10-20 s on a loaded machine, without holding a turn for minutes)
     * @param jitterRatio jitter as a fraction of the delay (0.25, as the model retries: agents do not retry in lockstep)
     */
    public record Retry(Duration firstDelay, Duration maxDelay, Duration budget, double jitterRatio) {
        /** The defaults explained above. */
        public static final Retry DEFAULT = new Retry(Duration.ofMillis(200), Duration.ofSeconds(5), Duration.ofSeconds(30),
                0.25);

        public Retry {
            Objects.requireNonNull(firstDelay, "firstDelay");
            Objects.requireNonNull(maxDelay, "maxDelay");
            Objects.requireNonNull(budget, "budget");
            if (firstDelay.isNegative() || maxDelay.isNegative() || budget.isNegative() || jitterRatio < 0) {
                throw new IllegalArgumentException("retry delays, budget and jitter must not be negative");
            }
        }
    }

    /**
     * Attempts of a call that gets no answer from a runner that is absent (see above): about half a second. With more
     * replicas than this, each is tried once.
     */
    static final int ATTEMPTS_WHEN_ABSENT = 3;

    /** A runner (any replica) answered (any status) since this client started or since a call last gave up on it. */
    private volatile boolean answering;

    /** The runner's replicas, each a base URL ending in {@code /}; one for a single runner. */
    private final List<URI> bases;
    /** Index in {@link #bases} of the replica requests go to: the one that answered last. */
    private final AtomicInteger current = new AtomicInteger();
    private final String token;
    private final DirectHttp http;
    private final Duration requestTimeout;
    private final Retry retry;
    private final Sleeper sleeper;
    private final InstantSource clock;
    private final DoubleSupplier random;

    /**
     * @param baseUrl        e.g. {@code http://127.0.0.1:8083}, or several replicas' URLs separated by commas
     * @param token          the runner's bearer token, or {@code null} when it has none
     * @param requestTimeout longest wait for one answer; must exceed the longest bash timeout the host allows
     */
    public ToolRunnerClient(String baseUrl, String token, Duration requestTimeout) {
        this(baseUrl, token, requestTimeout, Retry.DEFAULT);
    }

    public ToolRunnerClient(String baseUrl, String token, Duration requestTimeout, Retry retry) {
        this(baseUrl, token, requestTimeout, retry, Sleeper.REAL, InstantSource.system(),
                () -> ThreadLocalRandom.current().nextDouble());
    }

    /**
     * With the waiting made observable (tests): {@code sleeper} waits between attempts, {@code clock} measures the
     * budget, {@code random} in [0, 1) draws the jitter.
     */
    public ToolRunnerClient(String baseUrl, String token, Duration requestTimeout, Retry retry, Sleeper sleeper,
            InstantSource clock, DoubleSupplier random) {
        this(baseUrls(Objects.requireNonNull(baseUrl, "baseUrl")), token, requestTimeout, retry, sleeper, clock, random);
    }

    /** With the replicas' base URLs as a list (see the class comment); the first is tried first. */
    public ToolRunnerClient(List<String> baseUrls, String token, Duration requestTimeout, Retry retry) {
        this(baseUrls, token, requestTimeout, retry, Sleeper.REAL, InstantSource.system(),
                () -> ThreadLocalRandom.current().nextDouble());
    }

    /** {@link #ToolRunnerClient(List, String, Duration, Retry)} with the waiting made observable (tests). */
    public ToolRunnerClient(List<String> baseUrls, String token, Duration requestTimeout, Retry retry, Sleeper sleeper,
            InstantSource clock, DoubleSupplier random) {
        if (Objects.requireNonNull(baseUrls, "baseUrls").isEmpty()) {
            throw new IllegalArgumentException("the tool runner's URL is not set");
        }
        this.bases = baseUrls.stream().map(b -> URI.create(b.endsWith("/") ? b : b + "/")).toList();
        this.token = token == null || token.isBlank() ? null : token;
        this.requestTimeout = requestTimeout;
        this.retry = Objects.requireNonNull(retry, "retry");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.random = Objects.requireNonNull(random, "random");
        this.http = new DirectHttp(Duration.ofSeconds(5));
    }

    /** The URLs of a comma-separated list, blanks around each and empty entries dropped. */
    static List<String> baseUrls(String commaSeparated) {
        return Arrays.stream(commaSeparated.split(",")).map(String::strip).filter(u -> !u.isEmpty()).toList();
    }

    /** Runs tool {@code name}; a model-visible failure comes back in {@link ToolCallResult#error()}. */
    public ToolCallResult call(String name, ToolCallRequest request) {
        return Json.read(send(request("POST", "internal/v1/tools/" + enc(name), Json.write(request))).text(),
                ToolCallResult.class);
    }

    /**
     * The runner's catalogue of workspace tools ({@code GET /internal/v1/tools}), in its order.
     *
     * @throws ToolRunnerException when the runner did not answer after the retries, or answered something else
     */
    public List<ToolDescriptor> catalogue() {
        String body = send(request("GET", "internal/v1/tools", null)).text();
        try {
            return List.of(Json.MAPPER.readValue(body, ToolDescriptor[].class));
        } catch (IOException e) {
            throw new ToolRunnerException(0, "the tool runner's catalogue is not a list of tools: " + e.getMessage(), e);
        }
    }

    /** The state of background job {@code id}, or empty when the runner does not know it. */
    public Optional<BackgroundJob> backgroundJob(String id) {
        DirectHttp.Response r = sendAllowing404(request("GET", "internal/v1/background/" + enc(id), null));
        return r.status() == 404 ? Optional.empty() : Optional.of(Json.read(r.text(), BackgroundJob.class));
    }

    /** Cancels background job {@code id} (kills its process group); returns its state afterwards, empty if unknown. */
    public Optional<BackgroundJob> cancelBackgroundJob(String id) {
        DirectHttp.Response r = sendAllowing404(request("DELETE", "internal/v1/background/" + enc(id), null));
        return r.status() == 404 ? Optional.empty() : Optional.of(Json.read(r.text(), BackgroundJob.class));
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
        Request rb = request("PUT", "internal/v1/teams/" + enc(team) + "/workspace",
                Json.write(Map.of("workspace", workspace)));
        try {
            return Json.MAPPER.readTree(send(rb).text()).path("workspace").asText();
        } catch (IOException e) {
            throw new ToolRunnerException(0, "the tool runner's answer about team " + team + "'s workspace is not JSON", e);
        }
    }

    /**
     * A request to the runner: a JSON body (or none), the bearer token and the caller's trace context; {@code path} is
     * relative to the base URL of whichever replica it is sent to.
     */
    private record Request(String method, String path, List<String> headers, byte[] body) {
    }

    private Request request(String method, String path, String json) {
        List<String> h = new ArrayList<>(8);
        h.add("Accept");
        h.add("application/json");
        if (json != null) {
            h.add("Content-Type");
            h.add("application/json");
        }
        if (token != null) {
            h.add("Authorization");
            h.add("Bearer " + token);
        }
        // the W3C trace context of the calling tool's span (none when tracing is off): the runner's spans join the trace
        W3CTraceContextPropagator.getInstance()
                .inject(Context.current(), h, (c, k, v) -> {
                    c.add(k);
                    c.add(v);
                });
        return new Request(method, path, List.copyOf(h),
                json == null ? null : json.getBytes(StandardCharsets.UTF_8));
    }

    /** An answer and the URL it came from. */
    private record Answer(DirectHttp.Response response, URI uri) {
    }

    private DirectHttp.Response sendAllowing404(Request req) {
        Answer a = exchange(req, true);
        if (a.response().status() == 404 || a.response().status() / 100 == 2) {
            return a.response();
        }
        throw failure(req, a.uri(), a.response());
    }

    private DirectHttp.Response send(Request req) {
        Answer a = exchange(req, true);
        if (a.response().status() / 100 != 2) {
            throw failure(req, a.uri(), a.response());
        }
        return a.response();
    }

    /**
     * Sends {@code req}; when {@code retryable} (the request is keyed or idempotent), no answer and a 503 are retried
     * until the budget is spent; an attempt that got no answer sends the next one to the next replica. Returns the last
     * answer (a 503 when the runner stayed busy: reported by the caller with the runner's detail); throws when no
     * answer ever came.
     */
    private Answer exchange(Request req, boolean retryable) {
        Instant start = clock.instant();
        for (int attempt = 0; ; attempt++) {
            int replica = current.get();
            URI uri = bases.get(replica).resolve(req.path());
            try {
                DirectHttp.Response r = http.send(req.method(), uri, req.headers(), req.body(), requestTimeout);
                answering = true;
                if (r.status() != 503) {
                    return new Answer(r, uri);
                }
                Duration retryAfter = r.header("Retry-After").map(v -> retryAfter(v, clock.instant())).orElse(null);
                if (!retryable || !waitBeforeRetry(start, attempt, retryAfter)) {
                    throw busy(req, uri, r, attempt + 1, Duration.between(start, clock.instant()));
                }
            } catch (IOException e) {
                // refused or reset: this replica is (re)starting or gone, so the next attempt goes to the next one (unless
                // a concurrent call moved on already). A request timeout is retried too while budget remains (it usually
                // has not: the timeout exceeds the budget); the same runner joins the execution still running, another
                // replica answers from the shared journal that the call was started elsewhere
                current.compareAndSet(replica, (replica + 1) % bases.size());
                boolean absent = !answering && attempt + 1 >= Math.max(ATTEMPTS_WHEN_ABSENT, bases.size());
                if (!retryable || absent || !waitBeforeRetry(start, attempt, null)) {
                    answering = false;
                    throw new ToolRunnerException(0, "tool runner at " + uri + " did not answer after " + (attempt + 1)
                            + (attempt == 0 ? " attempt" : " attempts") + " in " + seconds(Duration.between(start, clock.instant()))
                            + (bases.size() > 1 ? " to its replicas " + bases + " in turn" : "")
                            + (absent ? " (it has not answered since this client started or since a call last gave up on"
                                    + " it, so the retry budget is not spent on it)" : " (retry budget " + seconds(retry.budget()) + ")")
                            + ": " + e, e);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ToolRunnerException(0, "interrupted while calling the tool runner at " + uri, e);
            }
        }
    }

    /**
     * Sleeps the backoff before the next attempt; false when the budget is spent (nothing is slept then). The last
     * wait is shortened to what remains of the budget, so the budget bounds the whole call but a last try happens.
     */
    private boolean waitBeforeRetry(Instant start, int attempt, Duration retryAfter) {
        Duration remaining = retry.budget().minus(Duration.between(start, clock.instant()));
        if (remaining.isNegative() || remaining.isZero()) {
            return false;
        }
        Duration d = RetryPolicy.delay(attempt, retryAfter, retry.firstDelay(), retry.maxDelay(), retry.budget(),
                retry.jitterRatio(), random.getAsDouble());
        if (d.compareTo(remaining) > 0) {
            d = remaining;
        }
        try {
            sleeper.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ToolRunnerException(0, "interrupted while waiting to retry the tool runner", e);
        }
        return true;
    }

    private ToolRunnerException busy(Request req, URI uri, DirectHttp.Response r, int attempts, Duration spent) {
        ToolRunnerException f = failure(req, uri, r);
        return new ToolRunnerException(503, "tool runner at " + uri + " stayed busy (503) for " + seconds(spent)
                + " over " + attempts + (attempts == 1 ? " attempt" : " attempts") + " (retry budget "
                + seconds(retry.budget()) + "): " + f.detail(), f.detail(), null);
    }

    /** {@code Retry-After}: seconds or an HTTP date; unreadable → null (the computed backoff applies). */
    static Duration retryAfter(String value, Instant now) {
        try {
            String v = value.trim();
            if (v.matches("\\d+(\\.\\d+)?")) {
                return Duration.ofMillis((long) (Double.parseDouble(v) * 1000));
            }
            Instant when = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            Duration d = Duration.between(now, when);
            return d.isNegative() ? Duration.ZERO : d;
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }

    private static ToolRunnerException failure(Request req, URI uri, DirectHttp.Response r) {
        String detail = r.text();
        try {
            JsonNode n = Json.MAPPER.readTree(r.text());
            if (n != null && n.hasNonNull("detail")) {
                detail = n.get("detail").asText();
            } else if (n != null && n.hasNonNull("title")) {
                detail = n.get("title").asText();
            }
        } catch (IOException | RuntimeException ignored) {
            // not JSON: keep the raw body
        }
        return new ToolRunnerException(r.status(), "tool runner answered " + r.status() + " to "
                + req.method() + " " + uri.getPath() + ": " + detail, detail, null);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
