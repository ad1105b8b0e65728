package dev.cohort.devstack.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** Starts a fresh server per test and talks to it like a real OpenAI client would: JSON over loopback HTTP. */
abstract class ScriptedModelTestSupport {

    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    ScriptedModelServer server;
    ScriptedModelClient client;

    @BeforeEach
    void startServer() {
        server = ScriptedModelServer.start(0);
        client = new ScriptedModelClient(server.adminUrl());
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    /** A chat-completions request body; messages are role/content pairs. */
    static ObjectNode chatRequest(String agent, String... roleAndContent) {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", "gpt-4o-mini");
        if (agent != null) {
            body.put("user", agent);
        }
        ArrayNode messages = body.putArray("messages");
        for (int i = 0; i < roleAndContent.length; i += 2) {
            messages.addObject().put("role", roleAndContent[i]).put("content", roleAndContent[i + 1]);
        }
        return body;
    }

    HttpResponse<String> post(String path, String body) {
        return send(HttpRequest.newBuilder(URI.create(server.adminUrl() + path))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer sk-test")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(URI.create(server.adminUrl() + path)).GET().build());
    }

    HttpResponse<String> chat(JsonNode body) {
        return post("/v1/chat/completions", body.toString());
    }

    static HttpResponse<String> send(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The answer's {@code choices[0]}, the part that carries the scripted content. */
    static JsonNode choice(HttpResponse<String> response) {
        return json(response.body()).path("choices").path(0);
    }
}
