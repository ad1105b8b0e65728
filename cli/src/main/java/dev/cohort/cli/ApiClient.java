package dev.cohort.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A Cohort HTTP API (lead-service or scheduler-service) as the CLI uses it: URL and token from flags, env, or the
 * running {@code cohort up} ({@code ~/.cohort/up.json}). Failures are {@link Unreachable} (nothing listens) or
 * {@link Failure} (an HTTP error, with the problem {@code detail}).
 */
final class ApiClient {

    /** Nothing answers at the service's URL. */
    static final class Unreachable extends IOException {
        private final String url;

        Unreachable(String url, Throwable cause) {
            super("cannot reach " + url + " - is `./cohort up` running?", cause);
            this.url = url;
        }

        String url() {
            return url;
        }
    }

    /**
     * An HTTP error answer; the message is the problem document's {@code detail} when there is one, on one line and
     * neutralised ({@link TerminalText#line}): a detail may quote what an agent wrote, and the CLI prints it.
     */
    static final class Failure extends IOException {
        private final int status;
        private final String detail;

        Failure(int status, String detail) {
            super("HTTP " + status + ": " + TerminalText.line(detail));
            this.status = status;
            this.detail = TerminalText.line(detail);
        }

        int status() {
            return status;
        }

        String detail() {
            return detail;
        }
    }

    private final String baseUrl;
    private final String token;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private ApiClient(String url, String token) {
        this.baseUrl = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.token = token != null ? token : env("COHORT_API_TOKEN") != null ? env("COHORT_API_TOKEN")
                : LocalRun.read().map(LocalRun::apiToken).filter(t -> !t.isBlank()).orElse(null);
    }

    /** The lead-service: {@code url}, env {@code COHORT_URL}, the running {@code cohort up}, or port 8080. */
    static ApiClient lead(String url, String token) {
        return new ApiClient(pick(url, "COHORT_URL", LocalRun.read().map(LocalRun::leadUrl), "http://127.0.0.1:8080"), token);
    }

    /** The scheduler-service: {@code url}, env {@code COHORT_SCHEDULER_URL}, the running {@code cohort up}, or port 8082. */
    static ApiClient scheduler(String url, String token) {
        return new ApiClient(pick(url, "COHORT_SCHEDULER_URL", LocalRun.read().map(LocalRun::schedulerUrl),
                "http://127.0.0.1:8082"), token);
    }

    private static String pick(String flag, String envName, Optional<String> run, String fallback) {
        if (flag != null && !flag.isBlank()) {
            return flag;
        }
        if (env(envName) != null) {
            return env(envName);
        }
        return run.filter(u -> !u.isBlank()).orElse(fallback);
    }

    private static String env(String name) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? null : v;
    }

    String baseUrl() {
        return baseUrl;
    }

    /** A path segment, URL-encoded (team ids and job ids are plain, but a typo must not change the path). */
    static String seg(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(30));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return b;
    }

    private <T> HttpResponse<T> send(HttpRequest req, HttpResponse.BodyHandler<T> handler) throws IOException, InterruptedException {
        try {
            return http.send(req, handler);
        } catch (ConnectException | HttpConnectTimeoutException e) {
            throw new Unreachable(baseUrl, e);
        } catch (IOException e) {
            if (e.getCause() instanceof ConnectException) {
                throw new Unreachable(baseUrl, e);
            }
            throw e;
        }
    }

    /** POSTs JSON; returns the parsed answer or throws {@link Failure} with the problem detail. */
    JsonNode post(String path, Object body) throws IOException, InterruptedException {
        return answer(send(request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(body))).build(), HttpResponse.BodyHandlers.ofString()));
    }

    /** PUTs JSON; returns the parsed answer or throws {@link Failure} with the problem detail. */
    JsonNode put(String path, Object body) throws IOException, InterruptedException {
        return answer(send(request(path).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(Json.write(body))).build(), HttpResponse.BodyHandlers.ofString()));
    }

    JsonNode get(String path) throws IOException, InterruptedException {
        return answer(getResponse(path));
    }

    /** GET with the raw response (for its headers); HTTP errors still throw. */
    HttpResponse<String> getResponse(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
        answer(r);
        return r;
    }

    JsonNode delete(String path) throws IOException, InterruptedException {
        return answer(send(request(path).DELETE().build(), HttpResponse.BodyHandlers.ofString()));
    }

    /** The server's clock from a response's {@code Date} header (second precision), if it sent one. */
    static Optional<Instant> serverDate(HttpResponse<?> r) {
        try {
            return r.headers().firstValue("Date")
                    .map(d -> ZonedDateTime.parse(d, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    static JsonNode answer(HttpResponse<String> r) throws IOException {
        if (r.statusCode() >= 400) {
            throw new Failure(r.statusCode(), detail(r.body()));
        }
        return r.body() == null || r.body().isBlank() ? Json.MAPPER.nullNode() : Json.MAPPER.readTree(r.body());
    }

    /** The {@code detail} (else {@code title}) of a problem document, else the body itself. */
    static String detail(String body) {
        if (body == null || body.isBlank()) {
            return "(no details)";
        }
        try {
            JsonNode p = Json.MAPPER.readTree(body);
            if (p.hasNonNull("detail")) {
                return p.get("detail").asText();
            }
            if (p.hasNonNull("title")) {
                return p.get("title").asText();
            }
        } catch (IOException ignored) {
            // not a problem document
        }
        return body.strip();
    }

    /**
     * Streams the team's events after {@code since} and hands each parsed event to {@code handler} until it returns
     * true (done: returns true) or the server ends the stream (returns false).
     */
    boolean stream(String team, long since, Predicate<JsonNode> handler) throws IOException, InterruptedException {
        HttpRequest req = request("/api/v1/teams/" + seg(team) + "/events?since=" + since).timeout(Duration.ofDays(1))
                .header("Accept", "text/event-stream").GET().build();
        HttpResponse<InputStream> r = send(req, HttpResponse.BodyHandlers.ofInputStream());
        if (r.statusCode() >= 400) {
            String body;
            try (InputStream in = r.body()) {
                body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            throw new Failure(r.statusCode(), detail(body));
        }
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            StringBuilder data = new StringBuilder();
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("data:")) {
                    if (!data.isEmpty()) {
                        data.append('\n');
                    }
                    String v = line.substring(5);
                    data.append(v.startsWith(" ") ? v.substring(1) : v);
                } else if (line.isEmpty() && !data.isEmpty()) {
                    JsonNode event = Json.MAPPER.readTree(data.toString());
                    data.setLength(0);
                    if (handler.test(event)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }
}
