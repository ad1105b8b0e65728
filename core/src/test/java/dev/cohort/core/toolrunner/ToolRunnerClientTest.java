package dev.cohort.core.toolrunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.cohort.core.protocol.Json;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The tool-runner client against a fake runner on loopback: wire format, token, errors, retries. */
class ToolRunnerClientTest {
    private HttpServer server;
    private final List<String> seen = new CopyOnWriteArrayList<>();
    private String base;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/internal/v1/tools/", ex -> {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            seen.add(ex.getRequestMethod() + " " + ex.getRequestURI().getPath() + " "
                    + ex.getRequestHeaders().getFirst("Authorization") + " " + body);
            byte[] out;
            int status;
            if (!"Bearer secret".equals(ex.getRequestHeaders().getFirst("Authorization"))) {
                status = 401;
                out = "{\"title\":\"Unauthorized\",\"status\":401,\"detail\":\"wrong bearer token\"}".getBytes();
                ex.getResponseHeaders().add("Content-Type", "application/problem+json");
            } else {
                status = 200;
                out = "{\"output\":\"hi\\n\",\"exitCode\":0,\"durationMs\":3,\"extra\":\"ignored\"}".getBytes();
                ex.getResponseHeaders().add("Content-Type", "application/json");
            }
            ex.sendResponseHeaders(status, out.length);
            ex.getResponseBody().write(out);
            ex.close();
        });
        server.createContext("/internal/v1/background/", ex -> {
            seen.add(ex.getRequestMethod() + " " + ex.getRequestURI().getPath());
            boolean known = ex.getRequestURI().getPath().endsWith("/bg_1");
            byte[] out = known ? "{\"id\":\"bg_1\",\"status\":\"cancelled\"}".getBytes() : "{\"status\":404}".getBytes();
            ex.sendResponseHeaders(known ? 200 : 404, out.length);
            ex.getResponseBody().write(out);
            ex.close();
        });
        server.createContext("/internal/v1/teams/", ex -> {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            seen.add(ex.getRequestMethod() + " " + ex.getRequestURI().getPath() + " " + body);
            boolean inside = body.contains("\"projects/a\"");
            byte[] out = inside ? "{\"team\":\"alpha\",\"workspace\":\"/srv/root/projects/a\"}".getBytes()
                    : "{\"title\":\"Bad Request\",\"status\":400,\"detail\":\"outside (rule: workspace-roots)\"}".getBytes();
            ex.sendResponseHeaders(inside ? 200 : 400, out.length);
            ex.getResponseBody().write(out);
            ex.close();
        });
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void postsTheRequestWithTheTokenAndReadsTheResult() throws Exception {
        ToolRunnerClient c = new ToolRunnerClient(base, "secret", Duration.ofSeconds(30));
        ToolCallResult r = c.call("bash", new ToolCallRequest("default", "lead", "call_1", "wt:poem",
                Map.of("command", "echo hi")));
        assertThat(r).isEqualTo(new ToolCallResult("hi\n", null, 0, null, null, 3));
        assertThat(r.forModel()).isEqualTo("hi\n");
        assertThat(seen).hasSize(1);
        String line = seen.get(0);
        assertThat(line).startsWith("POST /internal/v1/tools/bash Bearer secret ");
        JsonNode body = Json.MAPPER.readTree(line.substring(line.indexOf('{')));
        assertThat(body).isEqualTo(Json.MAPPER.readTree(
                "{\"team\":\"default\",\"agent\":\"lead\",\"callId\":\"call_1\",\"cwd\":\"wt:poem\",\"args\":{\"command\":\"echo hi\"}}"));
    }

    @Test
    void aRefusedRequestIsAToolRunnerExceptionWithTheProblemDetail() {
        ToolRunnerClient c = new ToolRunnerClient(base, "wrong", Duration.ofSeconds(30));
        assertThatThrownBy(() -> c.call("bash", new ToolCallRequest("default", "lead", "c", null, Map.of())))
                .isInstanceOf(ToolRunnerException.class).hasMessageContaining("401").hasMessageContaining("wrong bearer token")
                .extracting(e -> ((ToolRunnerException) e).status()).isEqualTo(401);
    }

    @Test
    void backgroundJobsCanBeReadAndCancelledAndUnknownOnesAreEmpty() {
        ToolRunnerClient c = new ToolRunnerClient(base, null, Duration.ofSeconds(30));
        assertThat(c.cancelBackgroundJob("bg_1")).get().extracting(BackgroundJob::status).isEqualTo("cancelled");
        assertThat(c.backgroundJob("bg_2")).isEmpty();
        assertThat(seen).containsExactly("DELETE /internal/v1/background/bg_1", "GET /internal/v1/background/bg_2");
    }

    @Test
    void aTeamWorkspaceIsPreparedByTheRunnerAndARefusalCarriesTheRunnersDetail() {
        ToolRunnerClient c = new ToolRunnerClient(base, null, Duration.ofSeconds(5));
        assertThat(c.prepareTeamWorkspace("alpha", "projects/a")).isEqualTo("/srv/root/projects/a");
        assertThat(seen).containsExactly("PUT /internal/v1/teams/alpha/workspace {\"workspace\":\"projects/a\"}");
        assertThatThrownBy(() -> c.prepareTeamWorkspace("alpha", "/etc")).isInstanceOf(ToolRunnerException.class)
                .satisfies(e -> {
                    ToolRunnerException t = (ToolRunnerException) e;
                    assertThat(t.status()).isEqualTo(400);
                    assertThat(t.detail()).isEqualTo("outside (rule: workspace-roots)");
                });
    }

    @Test
    void aRunnerThatDoesNotAnswerIsRetriedThenReported() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        ToolRunnerClient c = new ToolRunnerClient("http://127.0.0.1:" + closed, null, Duration.ofSeconds(2), 3,
                Duration.ofMillis(1));
        assertThatThrownBy(() -> c.call("bash", new ToolCallRequest("default", "lead", "c", null, Map.of())))
                .isInstanceOf(ToolRunnerException.class).hasMessageContaining("did not answer after 3 attempts")
                .extracting(e -> ((ToolRunnerException) e).status()).isEqualTo(0);
    }

    @Test
    void modelTextShowsExitCodeAndError() {
        assertThat(new ToolCallResult("", "timed out (rule: timeout)", null, null, null, 5).forModel())
                .isEqualTo("Error: timed out (rule: timeout)");
        assertThat(new ToolCallResult("oops\n", null, 2, null, null, 5).forModel()).isEqualTo("oops\n\n[exit code 2]");
        assertThat(ToolCallResult.ok("", 1).forModel()).isEqualTo("(no output)");
    }
}
