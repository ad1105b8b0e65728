package dev.cohort.lead.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import java.io.InputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Access, black box: lead-service started with {@code COHORT_API_TOKEN} refuses every {@code /api} call
 * of the contract (ARCHITECTURE §4) without the token or with a wrong one — 401 problem+json with
 * {@code WWW-Authenticate: Bearer}, and nothing happens — answers normally with it, and keeps health and metrics open.
 */
class LeadAccessIT {

    private static final String TOKEN = "it-api-token-0123456789abcdef0123456789abcdef";
    private static final String TEAM = "access";

    /** One call of the contract: method, path and (for POST) a valid body. */
    record Call(String method, String path, Object body) {
        @Override
        public String toString() {
            return method + " " + path;
        }
    }

    /** Every /api path of lead-service's contract, with bodies that would be accepted with the token. */
    static final List<Call> CONTRACT = List.of(
            new Call("GET", "/api/v1/teams", null),
            new Call("POST", "/api/v1/teams", Map.of("id", "created-by-" + TEAM)),
            new Call("GET", "/api/v1/teams/" + TEAM, null),
            new Call("POST", "/api/v1/teams/" + TEAM + "/prompts", Map.of("text", "hello access")),
            new Call("GET", "/api/v1/teams/" + TEAM + "/events", null),
            new Call("GET", "/api/v1/teams/" + TEAM + "/events?since=0", null),
            new Call("GET", "/api/v1/teams/" + TEAM + "/tasks", null),
            new Call("GET", "/api/v1/teams/" + TEAM + "/tasks?status=pending", null),
            new Call("GET", "/api/v1/teams/" + TEAM + "/tasks/task_1", null),
            new Call("GET", "/api/v1/teams/" + TEAM + "/agents", null),
            new Call("GET", "/api/v1/teams/" + TEAM + "/agents/lead", null),
            new Call("GET", "/api/v1/teams/" + TEAM + "/agents/lead/messages", null),
            new Call("POST", "/api/v1/teams/" + TEAM + "/agents/lead/interrupt", Map.of()),
            new Call("POST", "/api/v1/teams/" + TEAM + "/agents/nobody/interrupt", Map.of()),
            new Call("POST", "/api/v1/teams/" + TEAM + "/agents/lead/messages", Map.of("content", "hello access")),
            new Call("GET", "/api/v1/teams/" + TEAM + "/approvals", null),
            new Call("GET", "/api/v1/teams/" + TEAM + "/approvals?status=pending", null),
            new Call("POST", "/api/v1/teams/" + TEAM + "/approvals/appr_unknown", Map.of("approve", true)),
            new Call("GET", "/api/v1/teams/" + TEAM + "/protocols", null),
            // Cohort as an MCP server takes the API's token
            new Call("POST", "/mcp", Map.of("jsonrpc", "2.0", "id", 1, "method", "ping")),
            // not in the contract: the refusal must not tell what exists
            new Call("GET", "/api/v1/no-such-resource", null),
            new Call("DELETE", "/api/v1/teams/" + TEAM, null));

    static LeadStack stack;

    @BeforeAll
    static void start() {
        // with the tool runner: a turn offers the model the runner's workspace tools, read from its catalogue
        stack = LeadStack.start(true, TOKEN, Map.of());
        stack.model().load("""
                {"rules":[{"name":"hello","match":{"agent":"access/lead"},"reply":{"text":"hello back"}}]}""");
        HttpResponse<String> created = stack.send(withBody(stack.request("/api/v1/teams", TOKEN), "POST", Map.of("id", TEAM)).build());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void everyApiPathWithoutATokenIsRefusedWith401ProblemJson() {
        assertRefusedEverywhere(null, "missing bearer token");
    }

    @Test
    void everyApiPathWithAWrongTokenIsRefusedWith401ProblemJson() {
        assertRefusedEverywhere(TOKEN + "x", "invalid bearer token");
        assertRefusedEverywhere(TOKEN.substring(0, TOKEN.length() - 1), "invalid bearer token");
        // the right secret under another scheme is no bearer token
        for (Call c : CONTRACT) {
            HttpResponse<String> r = stack.send(withBody(stack.request(c.path(), null), c.method(), c.body())
                    .header("Authorization", "Basic " + TOKEN).build());
            assertThat(r.statusCode()).as(c + " with Basic").isEqualTo(401);
        }
    }

    @Test
    void refusedCallsChangeNothing() {
        for (String token : new String[] {null, "wrong"}) {
            stack.send(withBody(stack.request("/api/v1/teams", token), "POST", Map.of("id", "sneaky")).build());
            stack.send(withBody(stack.request("/api/v1/teams/" + TEAM + "/prompts", token), "POST",
                    Map.of("text", "sneaky prompt")).build());
        }
        assertThat(stack.get("/api/v1/teams/sneaky").statusCode()).isEqualTo(404);
        assertThat(stack.model().requests()).noneMatch(r -> r.body().toString().contains("sneaky prompt"));
    }

    @Test
    void theRightTokenGetsNormalAnswersOnEveryPath() throws Exception {
        List<String> problems = new ArrayList<>();
        for (Call c : CONTRACT) {
            if (c.path().contains("/events") || c.path().endsWith("/prompts")) {
                continue; // checked below: a stream never ends, and a running turn would make interrupt answer 202
            }
            HttpResponse<String> r = stack.send(withBody(stack.request(c.path(), TOKEN), c.method(), c.body()).build());
            int expected = switch (c.toString()) {
                case "POST /api/v1/teams" -> 201;
                // well-formed but unknown: the answer of the resource itself, not of the access check
                case "GET /api/v1/teams/access/tasks/task_1", "POST /api/v1/teams/access/approvals/appr_unknown",
                        "GET /api/v1/no-such-resource", "POST /api/v1/teams/access/agents/nobody/interrupt" -> 404;
                case "POST /api/v1/teams/access/agents/lead/messages" -> 202;
                case "POST /api/v1/teams/access/agents/lead/interrupt" -> 409; // no turn running on this replica
                case "DELETE /api/v1/teams/access" -> 405;
                default -> 200;
            };
            if (r.statusCode() != expected) {
                problems.add(c + " → " + r.statusCode() + " (expected " + expected + "): " + r.body());
            }
            assertThat(r.headers().firstValue("WWW-Authenticate")).as(c.toString()).isEmpty();
        }
        assertThat(problems).isEmpty();

        // the answers are the resources' own
        JsonNode teams = LeadStack.json(stack.get("/api/v1/teams").body());
        assertThat(teams.findValuesAsText("id")).contains("default", TEAM, "created-by-" + TEAM);
        assertThat(LeadStack.json(stack.get("/api/v1/teams/" + TEAM).body()).path("id").asText()).isEqualTo(TEAM);
        assertThat(LeadStack.json(stack.get("/api/v1/teams/" + TEAM + "/agents").body()).findValuesAsText("name")).contains("lead");
        assertThat(stack.get("/api/v1/teams/" + TEAM + "/tasks/task_1").headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));

        // the stream answers 200 text/event-stream and delivers the turn of a prompt accepted with 202
        try (EventStream sse = stack.events(TEAM, 0)) {
            assertThat(sse.status(Duration.ofSeconds(60))).isEqualTo(200);
            HttpResponse<String> accepted = stack.post("/api/v1/teams/" + TEAM + "/prompts", Map.of("text", "hello access"));
            assertThat(accepted.statusCode()).isEqualTo(202);
            assertThat(LeadStack.json(accepted.body()).path("id").asText()).isNotBlank();
            await().atMost(Duration.ofSeconds(30)).until(() -> sse.any(e -> e.type().equals("assistant_message")
                    && e.event().path("data").path("text").asText().equals("hello back")));
        }
        HttpResponse<InputStream> head = stack.http.send(stack.request("/api/v1/teams/" + TEAM + "/events", TOKEN)
                .header("Accept", "text/event-stream").GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        head.body().close();
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
    }

    @Test
    void healthAndMetricsStayOpenWithoutATokenOnTheManagementPortOnly() {
        HttpResponse<String> ready = stack.send(stack.managementRequest("/q/health/ready").GET().build());
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(LeadStack.json(ready.body()).path("status").asText()).isEqualTo("UP");
        HttpResponse<String> live = stack.send(stack.managementRequest("/q/health/live").GET().build());
        assertThat(live.statusCode()).isEqualTo(200);
        HttpResponse<String> metrics = stack.send(stack.managementRequest("/q/metrics").GET().build());
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("# TYPE ");
        // the API's port answers neither, with or without the token
        assertThat(stack.send(stack.request("/q/health/ready", null).GET().build()).statusCode()).isEqualTo(404);
        assertThat(stack.send(stack.request("/q/metrics", TOKEN).GET().build()).statusCode()).isEqualTo(404);
    }

    /**
     * The check is on the request path before routing: spellings of an /api path that a router or a proxy might
     * normalise to the same resource must not get past it (answer 401, or not found — never the resource).
     */
    @Test
    void unusualSpellingsOfAnApiPathDoNotBypassTheToken() throws IOException {
        List<String> leaks = new ArrayList<>();
        for (String target : List.of("//api/v1/teams", "/./api/v1/teams", "/q/../api/v1/teams", "/%61pi/v1/teams",
                "/api/v1/%74eams", "/API/v1/teams", "/api/v1/teams/", "/api/v1/teams?x=1", "/api/v1/teams;x=1",
                "/api/v1/./teams", "/api/v1/x/../teams", "/api//v1/teams", "http://127.0.0.1/api/v1/teams")) {
            String response = raw("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
            String statusLine = response.lines().findFirst().orElse("");
            boolean served = statusLine.contains(" 200 ") && response.contains("\"default\"");
            System.out.println("[LeadAccessIT] " + target + " → " + statusLine);
            if (served) {
                leaks.add(target + " → " + statusLine);
            }
        }
        assertThat(leaks).isEmpty();
    }

    private void assertRefusedEverywhere(String token, String detail) {
        List<String> problems = new ArrayList<>();
        for (Call c : CONTRACT) {
            HttpResponse<String> r = stack.send(withBody(stack.request(c.path(), token), c.method(), c.body())
                    .header("Accept", c.path().contains("/events") ? "text/event-stream" : "application/json").build());
            String type = r.headers().firstValue("Content-Type").orElse("");
            String auth = r.headers().firstValue("WWW-Authenticate").orElse("");
            if (r.statusCode() != 401 || !type.startsWith("application/problem+json") || !auth.startsWith("Bearer")) {
                problems.add(c + " → " + r.statusCode() + " " + type + " WWW-Authenticate=" + auth + ": " + r.body());
                continue;
            }
            JsonNode p = LeadStack.json(r.body());
            if (p.path("status").asInt() != 401 || !p.path("detail").asText().contains(detail)) {
                problems.add(c + " → problem body " + r.body());
            }
        }
        assertThat(problems).as("token %s", token == null ? "absent" : "wrong").isEmpty();
    }

    static HttpRequest.Builder withBody(HttpRequest.Builder b, String method, Object body) {
        return body == null ? b.method(method, HttpRequest.BodyPublishers.noBody())
                : b.header("Content-Type", "application/json").method(method,
                        HttpRequest.BodyPublishers.ofString(Json.write(body)));
    }

    private static String raw(String request) throws IOException {
        URI u = URI.create(stack.leadUrl());
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), u.getPort())) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }
}
