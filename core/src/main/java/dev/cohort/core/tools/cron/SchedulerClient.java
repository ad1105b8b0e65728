package dev.cohort.core.tools.cron;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Client of scheduler-service's cron API ({@code /api/v1/teams/{team}/crons}), plain {@code java.net.http} and
 * Jackson. A refusal (4xx problem+json) is a {@link Refused} carrying the scheduler's detail, for the model to read;
 * the service being down after retries is a {@link Unavailable}. Reads and deletes are retried on I/O errors and 5xx.
 * A create or delete may carry an {@code Idempotency-Key} (the tools send the name-based UUID of agent and call id,
 * {@link dev.cohort.core.tools.EffectKey#uuid()}): the scheduler then answers a repeat with its first answer, so a
 * keyed create is retried like a read. An unkeyed create is retried only when the connection was refused (the request
 * surely never arrived), so it is never duplicated.
 */
public class SchedulerClient {

    /** Attempts per call; with the backoff below a scheduler restart of about a second is ridden out. */
    private static final int ATTEMPTS = 3;
    private static final Duration BACKOFF = Duration.ofMillis(250);

    private final URI base;
    private final Optional<String> token;
    private final Duration timeout;
    private final HttpClient http;

    /**
     * @param base the scheduler's base URL, e.g. {@code http://127.0.0.1:8082}
     * @param token the API bearer token ({@code cohort.api.token}), if the scheduler requires one
     * @param timeout per request
     */
    public SchedulerClient(URI base, Optional<String> token, Duration timeout) {
        String b = base.toString();
        this.base = URI.create(b.endsWith("/") ? b.substring(0, b.length() - 1) : b);
        this.token = token == null ? Optional.empty() : token.filter(t -> !t.isBlank());
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    /** The scheduler refused the request; {@code detail} says why (e.g. {@code day-of-week: 8 is outside 0-7}). */
    public static class Refused extends RuntimeException {
        private final int status;
        private final String type;

        public Refused(int status, String type, String detail) {
            super(detail);
            this.status = status;
            this.type = type;
        }

        public int status() {
            return status;
        }

        /** The problem type, e.g. {@code urn:cohort:problem:invalid-cron}; may be null. */
        public String type() {
            return type;
        }

        /** The last segment of the problem type ({@code invalid-cron}), or {@code http-<status>}. */
        public String slug() {
            if (type == null || type.isBlank()) {
                return "http-" + status;
            }
            int i = Math.max(type.lastIndexOf(':'), type.lastIndexOf('/'));
            return type.substring(i + 1);
        }
    }

    /** The scheduler could not be reached or failed (5xx) after retries. */
    public static class Unavailable extends RuntimeException {
        public Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The header that makes a create or delete idempotent on scheduler-service. */
    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";

    /** {@code POST …/crons}: creates a job and returns it with its first {@code nextFireAt}. */
    public CronJobInfo schedule(String team, ScheduleCronArgs args) {
        return schedule(team, args, null);
    }

    /**
     * {@code POST …/crons} with an {@code Idempotency-Key} ({@code null}: none): a repeat with the same key gets the
     * job the first call created; the same key with another request is {@link Refused} (422
     * {@code idempotency-key-reused}).
     */
    public CronJobInfo schedule(String team, ScheduleCronArgs args, String idempotencyKey) {
        HttpRequest.Builder b = request(crons(team)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(args)));
        keyed(b, idempotencyKey);
        return Json.read(send(b.build(), idempotencyKey != null, 201).body(), CronJobInfo.class);
    }

    /** {@code GET …/crons}: the team's jobs, oldest first. */
    public List<CronJobInfo> list(String team) {
        String body = send(request(crons(team)).GET().build(), true, 200).body();
        try {
            return Json.MAPPER.readValue(body, new TypeReference<List<CronJobInfo>>() {
            });
        } catch (IOException e) {
            throw new Unavailable("scheduler answered an unreadable job list: " + e.getMessage(), e);
        }
    }

    /**
     * {@code GET …/crons/limits}: the limits in force for the team and its current counts. One attempt, no retry: it
     * is read for display ({@code cohort budget}), where "scheduler unavailable" is a better answer than a wait.
     */
    public CronLimits limits(String team) {
        URI uri = URI.create(crons(team) + "/limits");
        return Json.read(send(request(uri).GET().build(), true, 200, 1).body(), CronLimits.class);
    }

    /** {@code DELETE …/crons/{id}}: true when cancelled, false when the team has no such job. */
    public boolean cancel(String team, String jobId) {
        return cancel(team, jobId, null);
    }

    /**
     * {@code DELETE …/crons/{id}} with an {@code Idempotency-Key} ({@code null}: none): a repeat with the same key is
     * answered "cancelled" as the first call was, not "no such job".
     */
    public boolean cancel(String team, String jobId, String idempotencyKey) {
        URI uri = URI.create(crons(team) + "/" + URLEncoder.encode(jobId, StandardCharsets.UTF_8));
        try {
            HttpRequest.Builder b = request(uri).DELETE();
            keyed(b, idempotencyKey);
            send(b.build(), true, 204);
            return true;
        } catch (Refused r) {
            if (r.status() == 404) {
                return false;
            }
            throw r;
        }
    }

    private URI crons(String team) {
        return URI.create(base + "/api/v1/teams/" + URLEncoder.encode(team, StandardCharsets.UTF_8) + "/crons");
    }

    private static void keyed(HttpRequest.Builder b, String idempotencyKey) {
        if (idempotencyKey != null) {
            b.header(IDEMPOTENCY_KEY, idempotencyKey);
        }
    }

    private HttpRequest.Builder request(URI uri) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(timeout).header("Accept", "application/json");
        token.ifPresent(t -> b.header("Authorization", "Bearer " + t));
        return b;
    }

    private HttpResponse<String> send(HttpRequest req, boolean idempotent, int expected) {
        return send(req, idempotent, expected, ATTEMPTS);
    }

    private HttpResponse<String> send(HttpRequest req, boolean idempotent, int expected, int attempts) {
        Exception last = null;
        for (int attempt = 1; attempt <= attempts; attempt++) {
            try {
                HttpResponse<String> resp = http.send(req, HttpResponse.BodyHandlers.ofString());
                int status = resp.statusCode();
                if (status == expected || status >= 200 && status < 300) {
                    return resp;
                }
                if (status < 500) {
                    throw refused(resp);
                }
                last = new IOException("HTTP " + status + ": " + detail(resp.body()));
                if (!idempotent) {
                    break;
                }
            } catch (ConnectException e) {
                last = e; // never arrived: safe to retry even a create
            } catch (HttpTimeoutException e) {
                last = e;
                if (!idempotent) {
                    break;
                }
            } catch (IOException e) {
                last = e;
                if (!idempotent) {
                    break;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Unavailable("interrupted while calling the scheduler", e);
            }
            if (attempt < attempts) {
                try {
                    Thread.sleep(BACKOFF.toMillis() * attempt);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new Unavailable("interrupted while calling the scheduler", e);
                }
            }
        }
        throw new Unavailable("scheduler at " + base + " unavailable: " + last, last);
    }

    private static Refused refused(HttpResponse<String> resp) {
        String type = null;
        String detail = resp.body();
        try {
            JsonNode p = Json.MAPPER.readTree(resp.body());
            if (p != null && p.isObject()) {
                type = p.path("type").asText(null);
                detail = p.hasNonNull("detail") ? p.get("detail").asText() : p.path("title").asText(detail);
            }
        } catch (IOException e) {
            // not problem+json: keep the raw body as the detail
        }
        if (detail == null || detail.isBlank()) {
            detail = "HTTP " + resp.statusCode();
        }
        return new Refused(resp.statusCode(), type, detail);
    }

    private static String detail(String body) {
        return body == null || body.length() <= 300 ? body : body.substring(0, 300) + "…";
    }
}
