package dev.cohort.devstack.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Drives a {@link ScriptedModelServer} over HTTP, for tests whose class loader differs from the server's. */
public final class ScriptedModelClient {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final String adminUrl;
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(TIMEOUT)
            .build();

    /** {@code adminUrl} is {@link ScriptedModelServer#adminUrl()}; a base URL ending in {@code /v1} is accepted too. */
    public ScriptedModelClient(String adminUrl) {
        String url = adminUrl.endsWith("/") ? adminUrl.substring(0, adminUrl.length() - 1) : adminUrl;
        this.adminUrl = url.endsWith("/v1") ? url.substring(0, url.length() - 3) : url;
    }

    /** Replaces the server's rules with this scenario JSON. */
    public void load(String scenarioJson) {
        post("/__admin/scenario", scenarioJson);
    }

    public void load(Scenario scenario) {
        load(scenario.toJson());
    }

    /** Appends the rules of this scenario JSON after the server's current ones. */
    public void append(String scenarioJson) {
        post("/__admin/scenario?append=true", scenarioJson);
    }

    /** Loads a scenario file from the caller's classpath (the context class loader first). */
    public void loadResource(String classpathResource) {
        load(Scenario.readResource(classpathResource));
    }

    /** Clears the server's rules, request log and call counters. */
    public void reset() {
        post("/__admin/reset", "");
    }

    /** Every recorded request: {@code seq, time, agent, call, model, body, rule, status}. */
    public List<JsonNode> requests() {
        HttpRequest request = HttpRequest.newBuilder(URI.create(adminUrl + "/__admin/requests"))
                .timeout(TIMEOUT).GET().build();
        try {
            JsonNode array = Json.MAPPER.readTree(send(request));
            List<JsonNode> result = new ArrayList<>();
            array.forEach(result::add);
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Polls until at least {@code n} requests were recorded, then returns them all; fails after {@code timeout}. */
    public List<JsonNode> waitForRequests(int n, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<JsonNode> requests = requests();
            if (requests.size() >= n) {
                return requests;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("expected at least " + n + " request(s) at the scripted model within "
                        + timeout + ", got " + requests.size() + ": " + requests);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for requests", e);
            }
        }
    }

    private void post(String path, String body) {
        send(HttpRequest.newBuilder(URI.create(adminUrl + path))
                .timeout(TIMEOUT)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build());
    }

    private String send(HttpRequest request) {
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 != 2) {
                throw new IllegalStateException("scripted model " + request.method() + " " + request.uri()
                        + " answered " + response.statusCode() + ": " + response.body());
            }
            return response.body();
        } catch (IOException e) {
            throw new UncheckedIOException("scripted model unreachable at " + request.uri(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
