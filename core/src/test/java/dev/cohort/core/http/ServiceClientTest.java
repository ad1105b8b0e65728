package dev.cohort.core.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The services' one HTTP client and its retry policy, against a real HTTP server that answers from a script (the
 * tool runner's, the scheduler's and the lead's clients are tested on it in their own tests).
 */
class ServiceClientTest {

    /** One scripted answer: status and body. */
    private record Reply(int status, String body) {
    }

    private final Deque<Reply> script = new ArrayDeque<>();
    private final List<String> seen = Collections.synchronizedList(new ArrayList<>());
    private final List<Duration> slept = new ArrayList<>();
    private Instant now = Instant.parse("2026-12-06T12:00:00Z");
    private HttpServer server;

    private String start(Reply... replies) throws IOException {
        script.addAll(List.of(replies));
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            seen.add(ex.getRequestMethod() + " " + ex.getRequestURI().getPath() + " key="
                    + ex.getRequestHeaders().getFirst("Idempotency-Key") + " auth="
                    + ex.getRequestHeaders().getFirst("Authorization") + " body="
                    + new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            Reply r;
            synchronized (script) {
                r = script.size() > 1 ? script.poll() : script.peek();
            }
            byte[] out = r.body().getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(r.status(), out.length == 0 ? -1 : out.length);
            if (out.length > 0) {
                ex.getResponseBody().write(out);
            }
            ex.close();
        });
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private ServiceClient client(List<String> urls, Duration budget) {
        ServiceClient.Retry retry = new ServiceClient.Retry(Duration.ofMillis(200), Duration.ofSeconds(5), budget, 0);
        InstantSource clock = () -> now;
        return new ServiceClient("peer", urls, "s3cret", Duration.ofSeconds(5), retry, d -> {
            slept.add(d);
            now = now.plus(d);
        }, clock, () -> 0.0);
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void aRetryableRequestIsSentAgainAfterABadGatewayOrAGatewayTimeoutButNotAfterAServerError() throws Exception {
        String url = start(new Reply(502, ""), new Reply(504, ""), new Reply(200, "{\"ok\":true}"));
        try (ServiceClient c = client(List.of(url), Duration.ofSeconds(10))) {
            ServiceClient.Answer a = c.send(ServiceClient.Request.get("things/1"));
            assertThat(a.status()).isEqualTo(200);
            assertThat(a.attempts()).isEqualTo(3);
            assertThat(slept).containsExactly(Duration.ofMillis(200), Duration.ofMillis(400));
        }
        script.clear();
        script.add(new Reply(500, "{\"detail\":\"disk full\"}"));
        seen.clear();
        try (ServiceClient c = client(List.of(url), Duration.ofSeconds(10))) {
            ServiceClient.Answer a = c.send(ServiceClient.Request.get("things/1"));
            assertThat(a.status()).isEqualTo(500);
            assertThat(a.problem().detail()).isEqualTo("disk full");
            assertThat(seen).hasSize(1);
        }
    }

    @Test
    void aRequestThatIsNotSafeToRepeatIsSentOnceWhenItsPeerAnswersBusyOrDropsIt() throws Exception {
        String url = start(new Reply(503, "{\"title\":\"Service Unavailable\"}"));
        try (ServiceClient c = client(List.of(url), Duration.ofSeconds(10))) {
            ServiceClient.Answer a = c.send(ServiceClient.Request.post("tasks", Map.of("subject", "s"), false));
            assertThat(a.status()).isEqualTo(503);
            assertThat(seen).containsExactly("POST /tasks key=null auth=Bearer s3cret body={\"subject\":\"s\"}");
            assertThat(slept).isEmpty();
        }
    }

    @Test
    void aRequestThatIsNotSafeToRepeatIsSentAgainWhenItsConnectionWasRefusedBecauseItNeverArrived() throws Exception {
        String refused = "http://127.0.0.1:" + closedPort();
        String url = start(new Reply(201, "{\"id\":\"task_1\"}"));
        try (ServiceClient c = client(List.of(refused, url), Duration.ofSeconds(10))) {
            ServiceClient.Answer a = c.send(ServiceClient.Request.post("tasks", Map.of("subject", "s"), false));
            assertThat(a.status()).isEqualTo(201);
            assertThat(a.uri().toString()).startsWith(url);
            assertThat(seen).hasSize(1);
        }
    }

    @Test
    void anIdempotencyKeyMakesAWriteRetryableAndTravelsInItsHeader() throws Exception {
        String url = start(new Reply(503, ""), new Reply(201, "{}"));
        try (ServiceClient c = client(List.of(url), Duration.ofSeconds(10))) {
            ServiceClient.Answer a = c.send(ServiceClient.Request.post("crons", Map.of("cron", "@daily"), false)
                    .idempotencyKey("k-1"));
            assertThat(a.status()).isEqualTo(201);
            assertThat(seen).hasSize(2).allSatisfy(s -> assertThat(s).contains("key=k-1"));
        }
    }

    @Test
    void aPeerThatNeverAnsweredIsTriedThreeTimesAndTheFailureNamesItAndTheAttempts() throws Exception {
        int port = closedPort();
        try (ServiceClient c = client(List.of("http://127.0.0.1:" + port), Duration.ofSeconds(30))) {
            assertThatThrownBy(() -> c.send(ServiceClient.Request.get("x")))
                    .isInstanceOf(ServiceClient.NoAnswer.class)
                    .hasMessageStartingWith("peer at http://127.0.0.1:" + port + "/x did not answer after 3 attempts in 0.6 s")
                    .hasMessageContaining("it has not answered since this client started");
        }
    }

    @Test
    void aBudgetOfZeroIsOneAttempt() throws Exception {
        int port = closedPort();
        try (ServiceClient c = client(List.of("http://127.0.0.1:" + port), Duration.ZERO)) {
            assertThatThrownBy(() -> c.send(ServiceClient.Request.get("x")))
                    .isInstanceOf(ServiceClient.NoAnswer.class).hasMessageContaining("after 1 attempt in 0.0 s");
            assertThat(slept).isEmpty();
        }
    }

    @Test
    void aProblemIsReadFromProblemJsonAndAnyOtherBodyIsItsDetail() {
        ServiceClient.Problem p = ServiceClient.Problem.of(409, "{\"type\":\"urn:cohort:problem:owned\",\"title\":"
                + "\"Conflict\",\"detail\":\"task_1 is held by bob\",\"code\":\"owned\",\"owner\":\"bob\"}");
        assertThat(p.type()).isEqualTo("urn:cohort:problem:owned");
        assertThat(p.detail()).isEqualTo("task_1 is held by bob");
        assertThat(p.field("code")).isEqualTo("owned");
        assertThat(p.field("owner")).isEqualTo("bob");
        assertThat(p.field("missing")).isNull();
        assertThat(ServiceClient.Problem.of(400, "{\"title\":\"Bad Request\"}").detail()).isEqualTo("Bad Request");
        assertThat(ServiceClient.Problem.of(502, "<html>bad gateway</html>").detail()).isEqualTo("<html>bad gateway</html>");
        assertThat(ServiceClient.Problem.of(500, "").detail()).isEqualTo("HTTP 500");
        assertThat(ServiceClient.Problem.of(500, "x".repeat(400)).detail()).hasSize(301).endsWith("…");
    }

    @Test
    void aBaseUrlListIsSplitOnCommasAndAnEmptyOneIsRefused() {
        assertThat(ServiceClient.baseUrls(" http://a:1 ,http://b:2/, ")).containsExactly("http://a:1", "http://b:2/");
        assertThatThrownBy(() -> client(List.of(), Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("peer's URL is not set");
        assertThat(ServiceClient.segment("a b/c")).isEqualTo("a%20b%2Fc");
    }
}
