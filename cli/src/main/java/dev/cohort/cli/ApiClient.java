package dev.cohort.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Predicate;

/** The lead-service HTTP API as the CLI uses it: URL and token from flags, env, or the running {@code cohort up}. */
final class ApiClient {

    private final String baseUrl;
    private final String token;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    ApiClient(String url, String token) {
        LocalRun run = LocalRun.read().orElse(null);
        String u = url != null ? url : UpCommand.env("COHORT_URL") != null ? UpCommand.env("COHORT_URL")
                : run != null ? run.leadUrl() : "http://127.0.0.1:8080";
        this.baseUrl = u.endsWith("/") ? u.substring(0, u.length() - 1) : u;
        this.token = token != null ? token : UpCommand.env("COHORT_API_TOKEN") != null ? UpCommand.env("COHORT_API_TOKEN")
                : run != null && !run.apiToken().isBlank() ? run.apiToken() : null;
    }

    String baseUrl() {
        return baseUrl;
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(30));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return b;
    }

    /** POSTs JSON; returns the parsed answer or throws with the problem detail. */
    JsonNode post(String path, Object body) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(body))).build(), HttpResponse.BodyHandlers.ofString());
        return answer(r);
    }

    JsonNode get(String path) throws IOException, InterruptedException {
        return answer(http.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString()));
    }

    private static JsonNode answer(HttpResponse<String> r) throws IOException {
        if (r.statusCode() >= 400) {
            String detail = r.body();
            try {
                JsonNode p = Json.MAPPER.readTree(r.body());
                if (p.hasNonNull("detail")) {
                    detail = p.get("detail").asText();
                }
            } catch (IOException ignored) {
                // not a problem document
            }
            throw new IOException("HTTP " + r.statusCode() + ": " + detail);
        }
        return r.body().isBlank() ? Json.MAPPER.nullNode() : Json.MAPPER.readTree(r.body());
    }

    /**
     * Streams the team's events from {@code since} and hands each parsed event to {@code handler} until it returns
     * true (done) or the stream ends.
     */
    void stream(String team, long since, Predicate<JsonNode> handler) throws IOException, InterruptedException {
        HttpRequest req = request("/api/v1/teams/" + team + "/events?since=" + since).timeout(Duration.ofDays(1))
                .header("Accept", "text/event-stream").GET().build();
        HttpResponse<InputStream> r = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
        if (r.statusCode() >= 400) {
            throw new IOException("HTTP " + r.statusCode() + " on the event stream: " + new String(r.body().readAllBytes(), StandardCharsets.UTF_8));
        }
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            StringBuilder data = new StringBuilder();
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("data:")) {
                    data.append(line.substring(5).stripLeading());
                } else if (line.isEmpty() && !data.isEmpty()) {
                    JsonNode event = Json.MAPPER.readTree(data.toString());
                    data.setLength(0);
                    if (handler.test(event)) {
                        return;
                    }
                }
            }
        }
    }
}
