package dev.cohort.scheduler.support;

import com.sun.net.httpserver.HttpServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Plays lead-service's {@code GET /api/v1/teams/{team}} for the scheduler's team check: teams named {@code ghost…}
 * do not exist (404), every other team does (200); a request without the API token gets 401, as the real one would.
 */
public class LeadServiceStub implements QuarkusTestResourceLifecycleManager {

    /** The token the application is configured with in the test profile. */
    public static final String TOKEN = "test-token";

    private HttpServer server;

    @Override
    public Map<String, String> start() {
        server = start(TOKEN);
        return Map.of("cohort.lead.url", "http://127.0.0.1:" + server.getAddress().getPort(),
                "cohort.scheduler.validate-teams", "true");
    }

    /** Starts a stub on a free loopback port (also used directly by the client's unit test). */
    public static HttpServer start(String token) {
        try {
            HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            s.createContext("/api/v1/teams/", exchange -> {
                String team = exchange.getRequestURI().getPath().substring("/api/v1/teams/".length());
                int status;
                String body;
                if (!("Bearer " + token).equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
                    status = 401;
                    body = "{\"title\":\"Unauthorized\",\"status\":401}";
                } else if (team.startsWith("ghost")) {
                    status = 404;
                    body = "{\"title\":\"Not Found\",\"status\":404}";
                } else {
                    status = 200;
                    body = "{\"id\":\"" + team + "\"}";
                }
                byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(status, bytes.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            });
            s.start();
            return s;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the lead-service stub", e);
        }
    }

    @Override
    public void stop() {
        if (server != null) {
            server.stop(0);
        }
    }
}
