package dev.cohort.core.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.retry.RetryPolicy;
import dev.cohort.core.retry.Sleeper;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;

/**
 * How one Cohort service calls another's HTTP API: JSON bodies, the bearer token, the caller's W3C trace context, over
 * {@link DirectHttp} (a plain {@code http://} peer is called on the calling thread), and one retry policy. Every
 * internal client (the tool runner's, the scheduler's, the lead's internal API, the scheduler's team lookup) is this
 * class plus its paths and its own exceptions.
 *
 * <p><b>The retry policy.</b> A request is <em>retryable</em> when sending it twice does no harm: a read, an
 * idempotent write, or a write keyed so the peer answers a repeat from its record (a tool call id, an
 * {@code Idempotency-Key}, a lease token). A retryable request that gets no answer (connection refused or reset, a
 * timeout) or a {@code 502}, {@code 503} or {@code 504} is sent again after a capped exponential backoff with jitter
 * ({@link RetryPolicy}; a {@code Retry-After} is honoured instead), until the {@link Retry#budget() budget} is spent.
 * Any other answer, a {@code 500} included (the peer answered, and will answer the same again), is the caller's at once.
 * A request that is not retryable is sent again only when its connection was refused: it surely never arrived.
 *
 * <p>A peer that has not answered this client yet, or not since a request gave up on it, is not restarting but absent
 * (not started, a wrong URL, down for good): a request that gets no answer from it is tried only
 * {@value #ATTEMPTS_WHEN_ABSENT} times, so that a misconfiguration shows at once and callers do not each wait out the
 * budget.
 *
 * <p><b>Replicas.</b> The client may be given several base URLs, each a replica of the peer. It sends every request to
 * the one that answered last (the first at the start); an attempt that got no answer sends the next one to the next
 * replica, within the same budget.
 *
 * <p>Thread-safe; share one per peer.
 */
public final class ServiceClient implements AutoCloseable {

    /**
     * How retryable requests are retried.
     *
     * @param firstDelay  the first backoff delay
     * @param maxDelay    the cap of one computed delay (and of a {@code Retry-After} honoured)
     * @param budget      total time from the first attempt after which no retry starts
     * @param jitterRatio jitter as a fraction of the delay (callers do not retry in lockstep)
     */
    public record Retry(Duration firstDelay, Duration maxDelay, Duration budget, double jitterRatio) {
        /**
         * 200 ms doubling to 5 s, for 30 s, jitter 0.25: rides over a peer's JVM restart (10-20 s on a loaded machine)
         * without holding a caller for minutes, and a waiting caller notices a recovered peer within 5 s.
         */
        public static final Retry DEFAULT = new Retry(Duration.ofMillis(200), Duration.ofSeconds(5),
                Duration.ofSeconds(30), 0.25);

        public Retry {
            Objects.requireNonNull(firstDelay, "firstDelay");
            Objects.requireNonNull(maxDelay, "maxDelay");
            Objects.requireNonNull(budget, "budget");
            if (firstDelay.isNegative() || maxDelay.isNegative() || budget.isNegative() || jitterRatio < 0) {
                throw new IllegalArgumentException("retry delays, budget and jitter must not be negative");
            }
        }

        /** The default delays with another budget. */
        public static Retry within(Duration budget) {
            return new Retry(DEFAULT.firstDelay(), DEFAULT.maxDelay(), budget, DEFAULT.jitterRatio());
        }
    }

    /** Attempts of a request that gets no answer from an absent peer (see above); with more replicas, each once. */
    public static final int ATTEMPTS_WHEN_ABSENT = 3;

    /** The answers a retryable request is sent again after: the peer or a proxy in front of it is briefly away. */
    static final Set<Integer> RETRIED_STATUSES = Set.of(502, 503, 504);

    /**
     * A request, its path relative to the peer's base URL.
     *
     * @param headers   extra headers, name and value alternating
     * @param retryable sending it twice does no harm (see the class comment)
     */
    public record Request(String method, String path, byte[] body, List<String> headers, boolean retryable) {
        public Request {
            Objects.requireNonNull(method, "method");
            Objects.requireNonNull(path, "path");
            headers = List.copyOf(headers);
        }

        /** A {@code GET} (retryable). */
        public static Request get(String path) {
            return new Request("GET", path, null, List.of(), true);
        }

        /** A {@code DELETE} (retryable: deleting twice leaves the same). */
        public static Request delete(String path) {
            return new Request("DELETE", path, null, List.of(), true);
        }

        /** A {@code PUT} of {@code body} as JSON (retryable: putting twice leaves the same). */
        public static Request put(String path, Object body) {
            return new Request("PUT", path, json(body), List.of(), true);
        }

        /** A {@code POST} of {@code body} as JSON, retryable only when {@code retryable} (keyed or idempotent). */
        public static Request post(String path, Object body, boolean retryable) {
            return new Request("POST", path, json(body), List.of(), retryable);
        }

        /** This request with one more header. */
        public Request header(String name, String value) {
            List<String> h = new ArrayList<>(headers);
            h.add(name);
            h.add(value);
            return new Request(method, path, body, h, retryable);
        }

        /** This request keyed by an {@code Idempotency-Key} ({@code null}: unchanged): the peer answers a repeat alike. */
        public Request idempotencyKey(String key) {
            return key == null ? this : header("Idempotency-Key", key).retried();
        }

        /** This request, retryable (see the class comment). */
        public Request retried() {
            return new Request(method, path, body, headers, true);
        }

        private static byte[] json(Object body) {
            return body == null ? null : Json.write(body).getBytes(StandardCharsets.UTF_8);
        }
    }

    /** An answer, the URL it came from, and the attempts and time it took (retries included). */
    public record Answer(URI uri, DirectHttp.Response response, int attempts, Duration spent) {
        public int status() {
            return response.status();
        }

        public boolean ok() {
            return status() / 100 == 2;
        }

        public String text() {
            return response.text();
        }

        /** The body as {@code type} (the protocol's mapper). */
        public <T> T read(Class<T> type) {
            return Json.read(text(), type);
        }

        /** The body as a problem ({@code application/problem+json}; any other body is its detail). */
        public Problem problem() {
            return Problem.of(status(), text());
        }
    }

    /**
     * A refusal or failure as the peer described it.
     *
     * @param type   the problem type, e.g. {@code urn:cohort:problem:invalid-cron}, or {@code null}
     * @param detail the problem's detail (else its title, else the raw body, else {@code HTTP <status>})
     * @param body   the body as JSON (an empty object when it is not JSON)
     */
    public record Problem(int status, String type, String detail, JsonNode body) {
        static Problem of(int status, String text) {
            JsonNode n;
            try {
                n = text == null || text.isBlank() ? null : Json.MAPPER.readTree(text);
            } catch (IOException | RuntimeException e) {
                n = null; // not JSON: the raw body is the detail
            }
            if (n == null || !n.isObject()) {
                String detail = text == null || text.isBlank() ? "HTTP " + status : clip(text);
                return new Problem(status, null, detail, Json.MAPPER.createObjectNode());
            }
            String detail = n.hasNonNull("detail") ? n.get("detail").asText()
                    : n.hasNonNull("title") ? n.get("title").asText() : clip(text);
            return new Problem(status, n.path("type").asText(null), detail, n);
        }

        /** A string field of the problem ({@code code}, {@code owner}, …), or {@code null}. */
        public String field(String name) {
            return body.hasNonNull(name) ? body.get(name).asText() : null;
        }

        private static String clip(String s) {
            return s.length() <= 300 ? s : s.substring(0, 300) + "…";
        }
    }

    /**
     * No answer came (refused, reset, timed out) within the attempts the policy allows; the message names the peer,
     * the URL, the attempts and the time spent.
     */
    public static final class NoAnswer extends RuntimeException {
        NoAnswer(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final String peer;
    private final List<URI> bases;
    /** Index in {@link #bases} of the replica requests go to: the one that answered last. */
    private final AtomicInteger current = new AtomicInteger();
    /** The peer (any replica) answered since this client started or since a request last gave up on it. */
    private volatile boolean answering;
    private final String token;
    private final DirectHttp http;
    private final Duration requestTimeout;
    private final Retry retry;
    private final Sleeper sleeper;
    private final InstantSource clock;
    private final DoubleSupplier random;

    /**
     * @param peer           the peer's name in messages ({@code "tool runner"}, {@code "lead-service"})
     * @param baseUrls       its replicas' base URLs, tried in this order (see the class comment)
     * @param token          its bearer token, or {@code null}/blank when it has none
     * @param requestTimeout longest wait for one answer
     */
    public ServiceClient(String peer, List<String> baseUrls, String token, Duration requestTimeout, Retry retry) {
        this(peer, baseUrls, token, requestTimeout, retry, Sleeper.REAL, InstantSource.system(),
                () -> ThreadLocalRandom.current().nextDouble());
    }

    /**
     * With the waiting made observable (tests): {@code sleeper} waits between attempts, {@code clock} measures the
     * budget, {@code random} in [0, 1) draws the jitter.
     */
    public ServiceClient(String peer, List<String> baseUrls, String token, Duration requestTimeout, Retry retry,
            Sleeper sleeper, InstantSource clock, DoubleSupplier random) {
        this.peer = Objects.requireNonNull(peer, "peer");
        if (Objects.requireNonNull(baseUrls, "baseUrls").isEmpty()) {
            throw new IllegalArgumentException("the " + peer + "'s URL is not set");
        }
        this.bases = baseUrls.stream().map(b -> URI.create(b.endsWith("/") ? b : b + "/")).toList();
        this.token = token == null || token.isBlank() ? null : token;
        this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
        this.retry = Objects.requireNonNull(retry, "retry");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.random = Objects.requireNonNull(random, "random");
        this.http = new DirectHttp(Duration.ofSeconds(5).compareTo(requestTimeout) < 0 ? Duration.ofSeconds(5)
                : requestTimeout);
    }

    /** The URLs of a comma-separated list, blanks around each and empty entries dropped. */
    public static List<String> baseUrls(String commaSeparated) {
        return Arrays.stream(commaSeparated.split(",")).map(String::strip).filter(u -> !u.isEmpty()).toList();
    }

    /** {@code s} encoded as one path segment. */
    public static String segment(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    public String peer() {
        return peer;
    }

    public Retry retry() {
        return retry;
    }

    /**
     * Sends {@code req} under the retry policy. Returns the last answer, whatever its status (a {@code 503} when the
     * peer stayed busy for the whole budget: see {@link #busyFor}); throws {@link NoAnswer} when none came.
     */
    public Answer send(Request req) {
        List<String> headers = headers(req);
        Instant start = clock.instant();
        for (int attempt = 0; ; attempt++) {
            int replica = current.get();
            URI uri = bases.get(replica).resolve(req.path());
            try {
                DirectHttp.Response r = http.send(req.method(), uri, headers, req.body(), requestTimeout);
                answering = true;
                if (!req.retryable() || !RETRIED_STATUSES.contains(r.status())) {
                    return new Answer(uri, r, attempt + 1, Duration.between(start, clock.instant()));
                }
                Duration retryAfter = r.header("Retry-After").map(v -> RetryPolicy.retryAfter(v, clock.instant()))
                        .orElse(null);
                if (!waitBeforeRetry(start, attempt, retryAfter)) {
                    return new Answer(uri, r, attempt + 1, Duration.between(start, clock.instant()));
                }
            } catch (IOException e) {
                // refused or reset: this replica is (re)starting or gone, so the next attempt goes to the next one
                // (unless a concurrent request moved on already). A timeout is retried too while budget remains; the
                // peer answers the repeat of a keyed request from its record, or joins the execution still running
                current.compareAndSet(replica, (replica + 1) % bases.size());
                boolean again = req.retryable() || e instanceof ConnectException;
                boolean absent = !answering && attempt + 1 >= Math.max(ATTEMPTS_WHEN_ABSENT, bases.size());
                if (!again || absent || !waitBeforeRetry(start, attempt, null)) {
                    answering = false;
                    throw new NoAnswer(peer + " at " + uri + " did not answer after " + (attempt + 1)
                            + (attempt == 0 ? " attempt" : " attempts") + " in " + spent(start)
                            + (bases.size() > 1 ? " to its replicas " + bases + " in turn" : "")
                            + (!again ? " (the request is not safe to repeat)"
                                    : absent ? " (it has not answered since this client started or since a request last"
                                            + " gave up on it, so the retry budget is not spent on it)"
                                            : " (retry budget " + seconds(retry.budget()) + ")")
                            + ": " + e, e);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new NoAnswer("interrupted while calling the " + peer + " at " + uri, e);
            }
        }
    }

    /**
     * What a caller says of a {@code 503} {@link #send} returned: the peer stayed busy for the whole budget (or the
     * request was not retryable).
     */
    public String busyFor(Answer a) {
        return peer + " at " + a.uri() + " stayed busy (" + a.status() + ") for " + seconds(a.spent()) + " over "
                + a.attempts() + (a.attempts() == 1 ? " attempt" : " attempts") + " (retry budget "
                + seconds(retry.budget()) + ")";
    }

    private List<String> headers(Request req) {
        List<String> h = new ArrayList<>(8 + req.headers().size());
        h.add("Accept");
        h.add("application/json");
        if (req.body() != null) {
            h.add("Content-Type");
            h.add("application/json");
        }
        if (token != null) {
            h.add("Authorization");
            h.add("Bearer " + token);
        }
        h.addAll(req.headers());
        // the W3C trace context of the caller's span (none when tracing is off): the peer's spans join the trace
        W3CTraceContextPropagator.getInstance().inject(Context.current(), h, (c, k, v) -> {
            c.add(k);
            c.add(v);
        });
        return h;
    }

    /**
     * Sleeps the backoff before the next attempt; false when the budget is spent (nothing is slept then). The last
     * wait is shortened to what remains of the budget, so the budget bounds the whole request but a last try happens.
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
            throw new NoAnswer("interrupted while waiting to retry the " + peer, e);
        }
        return true;
    }

    private String spent(Instant start) {
        return seconds(Duration.between(start, clock.instant()));
    }

    static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }

    @Override
    public void close() {
        http.close();
    }
}
