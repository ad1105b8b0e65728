package dev.cohort.core.tools.cron;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.cohort.core.protocol.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small in-memory scheduler-service for the client's tests: the cron API with its status codes and problem+json,
 * refusing day-of-week 8 as the real one does, and able to fail the next N requests with 503.
 */
final class StubScheduler implements AutoCloseable {

    final HttpServer server;
    final Map<String, List<ObjectNode>> jobs = new ConcurrentHashMap<>();
    final List<String> requests = new CopyOnWriteArrayList<>();
    /** The {@code Idempotency-Key} of each request, {@code "null"} when there was none (this stub does not dedupe). */
    final List<String> idempotencyKeys = new CopyOnWriteArrayList<>();
    final List<String> authorizations = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger failNext = new AtomicInteger();
    private final AtomicInteger ids = new AtomicInteger();

    StubScheduler() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/api/v1/teams/", this::handle);
        server.start();
    }

    URI baseUrl() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private void handle(HttpExchange ex) throws IOException {
        String method = ex.getRequestMethod();
        String[] parts = ex.getRequestURI().getPath().split("/"); // "", api, v1, teams, {team}, crons, [id]
        String team = parts[4];
        requests.add(method + " " + ex.getRequestURI().getPath());
        authorizations.add(String.valueOf(ex.getRequestHeaders().getFirst("Authorization")));
        idempotencyKeys.add(String.valueOf(ex.getRequestHeaders().getFirst("Idempotency-Key")));
        if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            respond(ex, 503, "{\"type\":\"urn:cohort:problem:http-503\",\"title\":\"Unavailable\",\"status\":503}");
            return;
        }
        List<ObjectNode> teamJobs = jobs.computeIfAbsent(team, t -> new CopyOnWriteArrayList<>());
        switch (method) {
            case "POST" -> {
                JsonNode body = Json.MAPPER.readTree(ex.getRequestBody());
                if (body.path("cron").asText().endsWith(" 8")) {
                    respond(ex, 400, "{\"type\":\"urn:cohort:problem:invalid-cron\",\"title\":\"Invalid cron expression\","
                            + "\"status\":400,\"detail\":\"day-of-week: 8 is outside 0-7\"}");
                    return;
                }
                ObjectNode job = Json.MAPPER.createObjectNode();
                job.put("id", "cron_" + ids.incrementAndGet());
                job.put("team", team);
                job.put("target", "lead");
                job.put("cron", body.path("cron").asText());
                job.put("prompt", body.path("prompt").asText());
                job.put("recurring", body.path("recurring").asBoolean(true));
                job.put("durable", body.path("durable").asBoolean(true));
                job.put("timezone", body.path("timezone").asText("UTC"));
                job.put("missedPolicy", "skip");
                job.put("createdBy", body.path("createdBy").asText());
                job.put("nextFireAt", "2030-01-01T00:02:00Z");
                job.put("fireCount", 0);
                job.put("someFutureField", "ignored by clients");
                if (!job.get("durable").asBoolean()) {
                    job.put("note", "not durable: gone after a scheduler restart");
                }
                teamJobs.add(job);
                respond(ex, 201, Json.write(job));
            }
            case "GET" -> respond(ex, 200, Json.write(teamJobs));
            case "DELETE" -> {
                String id = parts[6];
                boolean removed = teamJobs.removeIf(j -> j.path("id").asText().equals(id));
                if (removed) {
                    ex.sendResponseHeaders(204, -1);
                    ex.close();
                } else {
                    respond(ex, 404, "{\"type\":\"urn:cohort:problem:not-found\",\"title\":\"Cron job not found\","
                            + "\"status\":404,\"detail\":\"no such job\"}");
                }
            }
            default -> respond(ex, 405, "{}");
        }
    }

    private static void respond(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", status >= 400 ? "application/problem+json" : "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
