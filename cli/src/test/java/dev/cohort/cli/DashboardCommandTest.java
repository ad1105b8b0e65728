package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code cohort dashboard} against a stand-in lead-service (the JDK's HTTP server): the link on stdout with the code
 * in the fragment (and the team when asked), its lifetime on stderr, the token sent as a bearer header and never
 * printed; an unknown team, a refusal, an unreachable service and bad usage exit 2. The real endpoint is
 * lead-service's {@code LoginCodeTest}; the link opened in a browser is {@code DashboardBrowserIT}.
 */
class DashboardCommandTest {

    static final String TOKEN = "cmd-test-token-0123456789";
    static final String CODE = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcde";

    HttpServer lead;
    final List<String> seen = new CopyOnWriteArrayList<>();

    record Run(int rc, String out, String err) {
    }

    @BeforeEach
    void startLead() throws IOException {
        lead = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        lead.createContext("/", ex -> {
            seen.add(ex.getRequestMethod() + " " + ex.getRequestURI() + " " + ex.getRequestHeaders().getFirst("Authorization"));
            if (!("Bearer " + TOKEN).equals(ex.getRequestHeaders().getFirst("Authorization"))) {
                reply(ex, 401, "{\"status\":401,\"title\":\"Unauthorized\",\"detail\":\"invalid bearer token\"}");
            } else if (ex.getRequestURI().getPath().equals("/api/v1/login-codes") && ex.getRequestMethod().equals("POST")) {
                reply(ex, 201, "{\"code\":\"" + CODE + "\",\"expiresAt\":\"2026-12-02T12:45:00Z\",\"required\":true}");
            } else if (ex.getRequestURI().getPath().equals("/api/v1/teams/docs")) {
                reply(ex, 200, "{\"id\":\"docs\"}");
            } else {
                reply(ex, 404, "{\"status\":404,\"title\":\"Not Found\",\"detail\":\"team \\\"nope\\\" not found\"}");
            }
        });
        lead.start();
    }

    @AfterEach
    void stopLead() {
        lead.stop(0);
    }

    @Test
    void printsAOneTimeLinkWithTheCodeInTheFragmentAndNeverTheToken() {
        Run r = run("dashboard", "--url", url(), "--token", TOKEN);
        assertThat(r.rc()).isZero();
        assertThat(r.out()).isEqualTo(url() + "/#code=" + CODE);
        assertThat(r.err()).isEqualTo("cohort dashboard: the link logs in once, until 12:45:00 UTC");
        assertThat(r.out() + r.err()).doesNotContain(TOKEN);
        assertThat(seen).containsExactly("POST /api/v1/login-codes Bearer " + TOKEN);
    }

    @Test
    void withATeamTheLinkOpensThatTeamAfterCheckingItExists() {
        Run r = run("dashboard", "--team", "docs", "--url", url(), "--token", TOKEN);
        assertThat(r.rc()).isZero();
        assertThat(r.out()).isEqualTo(url() + "/#team=docs&code=" + CODE);
        Run unknown = run("dashboard", "--team", "nope", "--url", url(), "--token", TOKEN);
        assertThat(unknown.rc()).isEqualTo(ApiCommand.REQUEST_FAILED);
        assertThat(unknown.out()).isEmpty();
        assertThat(unknown.err()).isEqualTo("cohort dashboard: team \"nope\" not found (HTTP 404)");
    }

    @Test
    void aWrongTokenAnUnreachableServiceAndBadUsageExit2() {
        Run refused = run("dashboard", "--url", url(), "--token", "wrong");
        assertThat(refused.rc()).isEqualTo(2);
        assertThat(refused.err()).isEqualTo("cohort dashboard: invalid bearer token (HTTP 401)");
        Run down = run("dashboard", "--url", "http://127.0.0.1:1", "--token", TOKEN);
        assertThat(down.rc()).isEqualTo(2);
        assertThat(down.err()).contains("cannot reach http://127.0.0.1:1 - is `./cohort up` running?");
        StringWriter err = new StringWriter();
        int usage = new CommandLine(new Main()).setErr(new PrintWriter(err)).execute("dashboard", "--open");
        assertThat(usage).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown option: '--open'");
    }

    @Test
    void theLinkShapeAndTheExpiryFormat() {
        assertThat(DashboardCommand.url("http://h:1", "a b", "c")).isEqualTo("http://h:1/#team=a%20b&code=c");
        assertThat(DashboardCommand.until("2026-12-02T09:05:07.123Z")).isEqualTo("09:05:07 UTC");
        assertThat(DashboardCommand.until("soon")).isEqualTo("soon");
    }

    private String url() {
        return "http://127.0.0.1:" + lead.getAddress().getPort();
    }

    private static void reply(HttpExchange ex, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", status >= 400 ? "application/problem+json" : "application/json");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
        ex.close();
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream savedOut = System.out;
        PrintStream savedErr = System.err;
        int rc;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            System.setOut(o);
            System.setErr(e);
            rc = new CommandLine(new Main()).execute(args);
        } finally {
            System.setOut(savedOut);
            System.setErr(savedErr);
        }
        return new Run(rc, out.toString(StandardCharsets.UTF_8).strip(), err.toString(StandardCharsets.UTF_8).strip());
    }
}
