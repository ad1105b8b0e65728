package dev.cohort.core.toolrunner;

import dev.cohort.core.http.ServiceClient;
import dev.cohort.core.retry.RetryPolicy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.tools.ToolInfrastructureException;
import dev.cohort.core.tools.workspace.ToolRunnerWorkspaceExecutor;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
    void aRunnerThatNeverAnsweredIsTriedThreeTimesThenReportedWithoutWaitingOutTheBudget() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        FakeTime time = new FakeTime();
        ToolRunnerClient c = time.client("http://127.0.0.1:" + closed, ServiceClient.Retry.DEFAULT);
        assertThatThrownBy(() -> c.call("bash", new ToolCallRequest("default", "lead", "c", null, Map.of())))
                .isInstanceOf(ToolRunnerException.class)
                .hasMessageContaining("did not answer after 3 attempts in 0.6 s (it has not answered since this client started")
                .extracting(e -> ((ToolRunnerException) e).status()).isEqualTo(0);
        assertThat(time.slept).containsExactly(Duration.ofMillis(200), Duration.ofMillis(400));
    }

    @Test
    void aRunnerThatAnsweredAndThenGoesAwayIsRetriedUntilTheBudgetIsSpentThenFailsFastUntilItAnswersAgain() throws Exception {
        Scripted runner = Scripted.start(ok());
        FakeTime time = new FakeTime();
        ToolRunnerClient c = time.client(runner.url(), new ServiceClient.Retry(Duration.ofMillis(200),
                Duration.ofSeconds(5), Duration.ofSeconds(1), 0));
        assertThat(c.call("bash", new ToolCallRequest("default", "lead", "c1", null, Map.of())).output()).isEqualTo("built\n");
        runner.stop(); // restarting: refused from now on

        assertThatThrownBy(() -> c.call("bash", new ToolCallRequest("default", "lead", "c2", null, Map.of())))
                .isInstanceOf(ToolRunnerException.class)
                .hasMessageContaining("did not answer after 4 attempts in 1.0 s (retry budget 1.0 s)");
        // 200, 400, then the rest of the budget (not the 800 ms the backoff asks for)
        assertThat(time.slept).containsExactly(Duration.ofMillis(200), Duration.ofMillis(400), Duration.ofMillis(400));

        // it did not come back within the budget: the next call does not wait it out again
        time.slept.clear();
        assertThatThrownBy(() -> c.call("bash", new ToolCallRequest("default", "lead", "c3", null, Map.of())))
                .isInstanceOf(ToolRunnerException.class).hasMessageContaining("did not answer after 3 attempts");
        assertThat(time.slept).containsExactly(Duration.ofMillis(200), Duration.ofMillis(400));
    }

    @Test
    void aBusyRunnerIsRetriedWithGrowingJitteredDelaysUntilItAnswers() throws Exception {
        Scripted runner = Scripted.start(busy(null), busy(null), ok());
        try {
            FakeTime time = new FakeTime(0.5);
            ToolCallResult r = time.client(runner.url(), ServiceClient.Retry.DEFAULT)
                    .call("bash", new ToolCallRequest("default", "lead", "call_7", null, Map.of("command", "make")));
            assertThat(r).isEqualTo(new ToolCallResult("built\n", null, 0, null, null, 9));
            // base 200 ms doubled, each plus jitter 0.25 × 0.5 of itself
            assertThat(time.slept).containsExactly(Duration.ofMillis(225), Duration.ofMillis(450));
            // the same call, id and all, each time: the runner dedupes by call id, so a retry never runs it twice
            assertThat(runner.bodies).hasSize(3).allSatisfy(b -> assertThat(b).contains("\"callId\":\"call_7\""))
                    .containsOnly(runner.bodies.get(0));
        } finally {
            runner.stop();
        }
    }

    @Test
    void theRunnersRetryAfterIsHonouredInsteadOfTheComputedBackoff() throws Exception {
        Scripted runner = Scripted.start(busy("3"), busy("Tue, 01 Dec 2026 12:00:10 GMT"), ok());
        try {
            FakeTime time = new FakeTime();
            time.now = Instant.parse("2026-12-01T12:00:00Z");
            ToolCallResult r = time.client(runner.url(), ServiceClient.Retry.DEFAULT)
                    .call("bash", new ToolCallRequest("default", "lead", "call_8", null, Map.of()));
            assertThat(r.output()).isEqualTo("built\n");
            // 3 s as seconds; then the HTTP date, 12:00:10, seen at 12:00:03
            assertThat(time.slept).containsExactly(Duration.ofSeconds(3), Duration.ofSeconds(7));
        } finally {
            runner.stop();
        }
        assertThat(RetryPolicy.retryAfter("soon", Instant.EPOCH)).isNull();
        assertThat(RetryPolicy.retryAfter("1.5", Instant.EPOCH)).isEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void aRunnerBusyBeyondTheBudgetEndsTheTurnAsAnInfrastructureFailureNamingTheBudget() throws Exception {
        Scripted runner = Scripted.start(busy(null));
        try {
            FakeTime time = new FakeTime();
            ToolRunnerClient c = time.client(runner.url(), new ServiceClient.Retry(Duration.ofMillis(200),
                    Duration.ofSeconds(5), Duration.ofSeconds(1), 0));
            var executor = new ToolRunnerWorkspaceExecutor(c);
            assertThatThrownBy(() -> executor.execute("bash", "call_9", Json.MAPPER.createObjectNode(),
                    new WorkspaceToolExecutor.Target("default", "lead", null)))
                    .isInstanceOf(ToolInfrastructureException.class)
                    .hasMessageContaining("tool runner failed for bash")
                    .hasMessageContaining("stayed busy (503) for 1.0 s over 4 attempts (retry budget 1.0 s)")
                    .hasMessageContaining("all 4 execution slots stayed busy for 5 s");
            assertThat(runner.bodies).hasSize(4);
            assertThat(time.slept).containsExactly(Duration.ofMillis(200), Duration.ofMillis(400), Duration.ofMillis(400));
        } finally {
            runner.stop();
        }
    }

    @Test
    void aRunnerErrorOtherThanBusyIsNotRetried() throws Exception {
        Scripted runner = Scripted.start(new Answer(500, null, "{\"status\":500,\"detail\":\"disk full\"}"));
        try {
            FakeTime time = new FakeTime();
            assertThatThrownBy(() -> time.client(runner.url(), ServiceClient.Retry.DEFAULT)
                    .call("bash", new ToolCallRequest("default", "lead", "call_10", null, Map.of())))
                    .isInstanceOf(ToolRunnerException.class).hasMessageContaining("500").hasMessageContaining("disk full");
            assertThat(runner.bodies).hasSize(1);
            assertThat(time.slept).isEmpty();
        } finally {
            runner.stop();
        }
    }

    @Test
    void aConnectionResetWhileTheRunnerRestartsIsRetried() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread server = Thread.ofVirtual().start(() -> {
                try {
                    // the first connection dies without an answer (the old process going away)
                    s.accept().close();
                    try (Socket second = s.accept()) {
                        var in = new BufferedReader(new InputStreamReader(second.getInputStream(), StandardCharsets.UTF_8));
                        int length = 0;
                        for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                                length = Integer.parseInt(line.substring(15).trim());
                            }
                        }
                        in.skip(length);
                        byte[] body = OK_BODY.getBytes(StandardCharsets.UTF_8);
                        second.getOutputStream().write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                                + body.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.UTF_8));
                        second.getOutputStream().write(body);
                        second.getOutputStream().flush();
                    }
                } catch (IOException ignored) {
                    // the test's assertion reports what went wrong
                }
            });
            FakeTime time = new FakeTime();
            ToolCallResult r = time.client("http://127.0.0.1:" + s.getLocalPort(), ServiceClient.Retry.DEFAULT)
                    .call("bash", new ToolCallRequest("default", "lead", "call_11", null, Map.of()));
            assertThat(r.output()).isEqualTo("built\n");
            assertThat(time.slept).containsExactly(Duration.ofMillis(200));
            server.join(Duration.ofSeconds(10));
        }
    }

    @Test
    void aNegativeRetryBudgetIsRefused() {
        assertThatThrownBy(() -> new ServiceClient.Retry(Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofSeconds(-1), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not be negative");
    }

    @Test
    void aReplicaThatRefusesIsLeftForTheNextOneAndLaterCallsGoStraightThere() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        Scripted second = Scripted.start(ok());
        try {
            FakeTime time = new FakeTime();
            ToolRunnerClient c = time.client("http://127.0.0.1:" + closed + ", " + second.url(), ServiceClient.Retry.DEFAULT);
            assertThat(c.call("bash", new ToolCallRequest("default", "lead", "c1", null, Map.of())).output()).isEqualTo("built\n");
            // one backoff, as for one runner, then the next replica
            assertThat(time.slept).containsExactly(Duration.ofMillis(200));
            assertThat(c.call("bash", new ToolCallRequest("default", "lead", "c2", null, Map.of())).output()).isEqualTo("built\n");
            assertThat(time.slept).containsExactly(Duration.ofMillis(200));
            assertThat(second.bodies).hasSize(2);
        } finally {
            second.stop();
        }
    }

    @Test
    void aCallWhoseReplicaDiesBeforeAnsweringIsRetriedOnTheNextReplicaWithTheSameCallId() throws Exception {
        try (RawRunner dying = RawRunner.start(false); RawRunner other = RawRunner.start(true)) {
            FakeTime time = new FakeTime();
            ToolRunnerClient c = time.client(List.of(dying.url(), other.url()), ServiceClient.Retry.DEFAULT);
            ToolCallResult r = c.call("bash", new ToolCallRequest("default", "lead", "call_12", null, Map.of("command", "make")));
            assertThat(r.output()).isEqualTo("built\n");
            assertThat(time.slept).containsExactly(Duration.ofMillis(200));
            // the replica that died had the request, the other got the very same one: its journal entry decides
            assertThat(dying.bodies).hasSize(1);
            assertThat(other.bodies).containsExactly(dying.bodies.get(0));
            assertThat(other.bodies.get(0)).contains("\"callId\":\"call_12\"");

            c.call("bash", new ToolCallRequest("default", "lead", "call_13", null, Map.of()));
            assertThat(dying.bodies).hasSize(1);
            assertThat(other.bodies).hasSize(2);
        }
    }

    @Test
    void replicasThatAllStopAnsweringAreTriedInTurnUntilTheBudgetIsSpent() throws Exception {
        try (RawRunner first = RawRunner.start(true, false); RawRunner second = RawRunner.start(false)) {
            FakeTime time = new FakeTime();
            ToolRunnerClient c = time.client(List.of(first.url(), second.url()), new ServiceClient.Retry(Duration.ofMillis(200),
                    Duration.ofSeconds(5), Duration.ofSeconds(1), 0));
            assertThat(c.call("bash", new ToolCallRequest("default", "lead", "c1", null, Map.of())).output()).isEqualTo("built\n");

            assertThatThrownBy(() -> c.call("bash", new ToolCallRequest("default", "lead", "c2", null, Map.of())))
                    .isInstanceOf(ToolRunnerException.class)
                    .hasMessageContaining("did not answer after 4 attempts in 1.0 s to its replicas [" + first.url() + "/, "
                            + second.url() + "/] in turn (retry budget 1.0 s)");
            assertThat(time.slept).containsExactly(Duration.ofMillis(200), Duration.ofMillis(400), Duration.ofMillis(400));
            // c1 on the first; then first, second, first, second
            assertThat(first.bodies).hasSize(3);
            assertThat(second.bodies).hasSize(2);
        }
    }

    @Test
    void replicasThatNeverAnsweredAreEachTriedOnceWhenThereAreMoreThanThree() throws Exception {
        List<RawRunner> runners = List.of(RawRunner.start(false), RawRunner.start(false), RawRunner.start(false),
                RawRunner.start(false));
        try {
            FakeTime time = new FakeTime();
            ToolRunnerClient c = time.client(runners.stream().map(RawRunner::url).toList(), ServiceClient.Retry.DEFAULT);
            assertThatThrownBy(() -> c.call("bash", new ToolCallRequest("default", "lead", "c", null, Map.of())))
                    .isInstanceOf(ToolRunnerException.class).hasMessageContaining("did not answer after 4 attempts");
            assertThat(runners).allSatisfy(r -> assertThat(r.bodies).hasSize(1));
        } finally {
            for (RawRunner r : runners) {
                r.close();
            }
        }
    }

    @Test
    void aCommaSeparatedListNamesTheReplicasAndAnEmptyOneIsRefused() {
        assertThat(ServiceClient.baseUrls(" http://a:1 ,http://b:2/, ")).containsExactly("http://a:1", "http://b:2/");
        assertThat(ServiceClient.baseUrls("http://a:1")).containsExactly("http://a:1");
        assertThatThrownBy(() -> new ToolRunnerClient(" , ", null, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("the tool runner's URL is not set");
    }

    private static final String OK_BODY = "{\"output\":\"built\\n\",\"exitCode\":0,\"durationMs\":9}";

    private static Answer ok() {
        return new Answer(200, null, OK_BODY);
    }

    private static Answer busy(String retryAfter) {
        return new Answer(503, retryAfter,
                "{\"title\":\"Service Unavailable\",\"status\":503,\"detail\":\"all 4 execution slots stayed busy for 5 s\"}");
    }

    /** One scripted answer of the fake runner. */
    private record Answer(int status, String retryAfter, String body) {
    }

    /** A fake runner answering the scripted answers in order (the last one repeats), recording each request body. */
    private static final class Scripted {
        final HttpServer server;
        final List<String> bodies = new CopyOnWriteArrayList<>();

        private Scripted(HttpServer server) {
            this.server = server;
        }

        static Scripted start(Answer... answers) throws IOException {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            Scripted s = new Scripted(server);
            server.createContext("/internal/v1/", ex -> {
                s.bodies.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                Answer a = answers[Math.min(s.bodies.size(), answers.length) - 1];
                if (a.retryAfter() != null) {
                    ex.getResponseHeaders().add("Retry-After", a.retryAfter());
                }
                ex.getResponseHeaders().add("Content-Type", "application/json");
                byte[] out = a.body().getBytes(StandardCharsets.UTF_8);
                ex.sendResponseHeaders(a.status(), out.length);
                ex.getResponseBody().write(out);
                ex.close();
            });
            server.start();
            return s;
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        void stop() {
            server.stop(0);
        }
    }

    /**
     * A fake replica on a raw socket: each connection reads one request, records its body, then answers the next
     * scripted outcome (the last repeats): {@code true} a 200, {@code false} closes the connection without an answer,
     * as a runner killed while it ran the call.
     */
    private static final class RawRunner implements AutoCloseable {
        final ServerSocket socket;
        final List<String> bodies = new CopyOnWriteArrayList<>();
        final boolean[] answers;

        private RawRunner(ServerSocket socket, boolean[] answers) {
            this.socket = socket;
            this.answers = answers;
        }

        static RawRunner start(boolean... answers) throws IOException {
            RawRunner r = new RawRunner(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), answers);
            Thread.ofVirtual().start(r::serve);
            return r;
        }

        private void serve() {
            while (!socket.isClosed()) {
                try (Socket s = socket.accept()) {
                    var in = s.getInputStream();
                    int length = 0;
                    for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
                        if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                            length = Integer.parseInt(line.substring(15).trim());
                        }
                    }
                    bodies.add(new String(in.readNBytes(length), StandardCharsets.UTF_8));
                    if (answers[Math.min(bodies.size(), answers.length) - 1]) {
                        byte[] body = OK_BODY.getBytes(StandardCharsets.UTF_8);
                        s.getOutputStream().write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                                + body.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.UTF_8));
                        s.getOutputStream().write(body);
                        s.getOutputStream().flush();
                    }
                } catch (IOException e) {
                    // closed by the test, or a client that went away: the assertions tell
                }
            }
        }

        private static String readLine(InputStream in) throws IOException {
            StringBuilder b = new StringBuilder();
            for (int c = in.read(); c != -1 && c != '\n'; c = in.read()) {
                if (c != '\r') {
                    b.append((char) c);
                }
            }
            return b.toString();
        }

        String url() {
            return "http://127.0.0.1:" + socket.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /** A clock that only moves when the client sleeps, and the sleeps it asked for: no real waiting. */
    private static final class FakeTime {
        final List<Duration> slept = new CopyOnWriteArrayList<>();
        final double random;
        volatile Instant now = Instant.parse("2026-12-01T00:00:00Z");

        FakeTime() {
            this(0);
        }

        FakeTime(double random) {
            this.random = random;
        }

        ToolRunnerClient client(String url, ServiceClient.Retry retry) {
            return new ToolRunnerClient(url, null, Duration.ofSeconds(10), retry, d -> {
                slept.add(d);
                now = now.plus(d);
            }, () -> now, () -> random);
        }

        ToolRunnerClient client(List<String> urls, ServiceClient.Retry retry) {
            return new ToolRunnerClient(urls, null, Duration.ofSeconds(10), retry, d -> {
                slept.add(d);
                now = now.plus(d);
            }, () -> now, () -> random);
        }
    }

    @Test
    void modelTextShowsExitCodeAndError() {
        assertThat(new ToolCallResult("", "timed out (rule: timeout)", null, null, null, 5).forModel())
                .isEqualTo("Error: timed out (rule: timeout)");
        assertThat(new ToolCallResult("oops\n", null, 2, null, null, 5).forModel()).isEqualTo("oops\n\n[exit code 2]");
        assertThat(ToolCallResult.ok("", 1).forModel()).isEqualTo("(no output)");
    }
}
