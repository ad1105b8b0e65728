package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/**
 * The dashboard in a real headless Chromium against real services: {@code cohort up} with the scripted model
 * ({@code dashboard-scenario.json}) and an API token, Debian's chromium driven over WebDriver (without chromium and
 * chromedriver the test is skipped, saying how to install them). A person opens the page, logs in (a wrong token
 * first), plans work onto the board, watches the lead's {@code rm -r build} wait for approval, approves it by clicking
 * and sees the tool result; a teammate spawned by the lead shows up under its own name and moves task_1 from "pending"
 * to "completed"; the feed filters by agent; a plan of a teammate in plan mode is denied with a reason by clicking,
 * another's approved by clicking (that teammate then writes its file); a cron job is added and removed through the
 * lead's proxy, and a bad schedule is refused with the scheduler's own reason; a turn waiting for an approval is ended
 * by the interrupt button. The one-time login link {@code cohort up} printed logs in without typing and is refused the
 * second time; {@code cohort dashboard}'s link logs in again. Every visible text's contrast is measured (WCAG AA).
 * Screenshots land in {@code target/dashboard-screenshots/}.
 */
class DashboardBrowserIT {

    static final String TOKEN = "dashboard-it-token-0123456789abcdef";
    /** Everything below runs through four JVMs and a browser on a shared 2-core machine: generous, never a sleep. */
    static final Duration PATIENCE = Duration.ofMinutes(3);
    static final Path SHOTS = Path.of("target", "dashboard-screenshots").toAbsolutePath();

    @TempDir
    Path tmp;

    @Test
    void aPersonLogsInWatchesTheTeamApprovesACommandAndSeesATeammateMoveATask() throws Exception {
        // before anything starts: without a browser the test is skipped (or fails in CI), saying how to install one
        WebDriver.Browser browser = WebDriver.browser();
        Path scenario = tmp.resolve("scenario.json");
        try (InputStream in = DashboardBrowserIT.class.getResourceAsStream("dashboard-scenario.json")) {
            Files.write(scenario, in.readAllBytes());
        }
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Files.createDirectories(ws.resolve("build"));
        Files.writeString(ws.resolve("build/app.jar"), "not really a jar\n");
        Files.createDirectories(ws.resolve("logs"));
        Files.writeString(ws.resolve("logs/old.log"), "old\n");
        UpCommandIT.Up up = UpCommandIT.start(tmp, scenario, Map.of("COHORT_API_TOKEN", TOKEN));
        try {
            UpCommandIT.awaitReady(up);
            JsonNode run = Json.MAPPER.readTree(tmp.resolve("home").resolve("up.json").toFile());
            String lead = run.get("leadUrl").asText();
            // `cohort up` prints a one-time login link to the dashboard (the code in the fragment), never the token
            String link = up.out().stream().map(String::strip).filter(l -> l.matches("dashboard +http.*")).findFirst()
                    .orElseThrow().substring("dashboard".length()).strip();
            assertThat(link).matches(Pattern.quote(lead) + "/#code=[A-Za-z0-9_-]{43}");
            assertThat(up.out()).noneMatch(l -> l.contains(TOKEN))
                    .anyMatch(l -> l.strip().matches("dashboard login {6}the link logs in once, until \\d\\d:\\d\\d:\\d\\d UTC; "
                            + "`cohort dashboard` prints a new one"));
            double minContrast = Double.MAX_VALUE;

            HttpClient http = HttpClient.newHttpClient();
            // the page and its assets are open (they hold no data); the API is not, without a token or a cookie
            assertThat(http.send(HttpRequest.newBuilder(URI.create(lead + "/")).build(), HttpResponse.BodyHandlers.ofString()).body())
                    .contains("<title>Cohort dashboard</title>");
            assertThat(http.send(HttpRequest.newBuilder(URI.create(lead + "/api/v1/teams")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
            assertThat(http.send(HttpRequest.newBuilder(URI.create(lead + "/api/v1/teams")).header("Cookie",
                    "cohort_session=v1.99999999999.forged").build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
            // login codes are the API's to give: without the token, none
            assertThat(http.send(HttpRequest.newBuilder(URI.create(lead + "/api/v1/login-codes")).POST(HttpRequest.BodyPublishers.noBody())
                    .build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);

            try (WebDriver b = WebDriver.start(browser, Files.createDirectories(tmp.resolve("chromium-profile")), tmp.resolve("chromedriver.log"))) {
                b.open(lead + "/");
                waitVisible(b, "#login-view");
                assertThat(b.focusedId()).as("the token field has the focus").isEqualTo("login-token");
                b.screenshot(SHOTS.resolve("01-login.png"));

                // a wrong token: a clear message, still logged out
                b.type(b.find("#login-token"), "not-the-token");
                b.click(b.find("#login-submit"));
                await("the wrong token is refused").atMost(PATIENCE).until(() -> b.text("#login-error").contains("wrong API token"));
                assertThat(visible(b, "#app")).isFalse();
                minContrast = Math.min(minContrast, contrast(b, "login view with an error"));

                // the link `cohort up` printed logs in without typing (pasted into this tab: only the fragment changes);
                // the code is taken out of the URL before it is redeemed
                b.open(link);
                waitVisible(b, "#app");
                assertThat(visible(b, "#login-view")).isFalse();
                await("the event stream is live after the link").atMost(PATIENCE).until(() -> b.text("#conn").equals("events: live"));
                assertThat(b.script("return location.href").asText()).doesNotContain("code=").endsWith("/#team=default");
                // logged out, the same link again, in a fresh page load: refused, with what to do
                b.click(b.find("#logout"));
                waitVisible(b, "#login-view");
                b.open("about:blank");
                b.open(link);
                await("the used link is refused").atMost(PATIENCE).until(() -> b.text("#login-error").equals("Login failed: "
                        + "this login link was already used or has expired — run `cohort dashboard` for a new one"));
                assertThat(visible(b, "#app")).isFalse();
                assertThat(b.script("return location.href").asText()).doesNotContain("code=");
                b.screenshot(SHOTS.resolve("01b-used-link.png"));

                // the token, with the keyboard only: type, Enter
                String field = b.find("#login-token");
                b.clear(field);
                b.type(field, TOKEN);
                b.pressEnter(field);
                waitVisible(b, "#app");
                assertThat(visible(b, "#login-view")).as("the login form is gone").isFalse();
                await("the event stream is live").atMost(PATIENCE).until(() -> b.text("#conn").equals("events: live"));
                assertThat(b.script("return document.cookie").asText()).as("the session cookie is HttpOnly").doesNotContain("cohort_session");
                assertThat(b.script("return document.getElementById('team-picker').value").asText()).isEqualTo("default");

                // every form control has a label
                assertThat(b.script("""
                        return [...document.querySelectorAll('#app input, #app textarea, #app select')]
                          .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')).map(e => e.id)""")).isEmpty();

                // plan: two tasks, task_2 blocked by task_1, both pending
                prompt(b, "Plan the users API: a schema and the docs.");
                await("the board shows both tasks").atMost(PATIENCE).until(() -> cards(b, "pending").size() == 2);
                assertThat(cards(b, "pending")).anyMatch(c -> c.startsWith("task_1 Design the users table schema"))
                        .anyMatch(c -> c.startsWith("task_2 Document the API") && c.contains("blocked by task_1 (waiting on task_1)"));

                // the lead's destructive command waits for a person, live in the feed and in the approvals panel
                prompt(b, "Clean the build directory.");
                await("the approval is asked").atMost(PATIENCE).until(() -> feed(b, "lead", "approval_requested").stream()
                        .anyMatch(t -> t.contains("rm -r build")));
                await("the approval shows its buttons").atMost(PATIENCE).until(() -> !b.findAll("#approvals .approval button.approve").isEmpty());
                assertThat(b.text("#approvals .approval")).contains("lead asks:").contains("bash").contains("rm -r build");
                assertThat(Files.exists(ws.resolve("build"))).as("nothing ran before the approval").isTrue();
                b.screenshot(SHOTS.resolve("02-approval.png"));
                typeReason(b, "#approvals .approval input", "build output is disposable");
                b.click(b.find("#approvals .approval button.approve"));
                await("the tool result appears").atMost(PATIENCE).until(() -> feed(b, "lead", "tool_call_finished").stream()
                        .anyMatch(t -> t.contains("← bash")));
                await("the turn ends").atMost(PATIENCE).until(() -> feed(b, "lead", "assistant_message").stream()
                        .anyMatch(t -> t.contains("Removed build/.")));
                assertThat(Files.exists(ws.resolve("build"))).isFalse();
                assertThat(feed(b, "lead", "approval_resolved")).anyMatch(t -> t.contains("approved"));
                await("the approvals panel empties").atMost(PATIENCE).until(() -> b.text("#approvals").contains("Nothing waits for you."));

                // a teammate: its events under its own name, task_1 moves from pending to completed
                prompt(b, "Ask alice to do the schema.");
                await("alice's events appear").atMost(PATIENCE).until(() -> !feed(b, "alice", "assistant_message").isEmpty());
                await("task_1 is completed by alice").atMost(PATIENCE).until(() -> cards(b, "completed").stream()
                        .anyMatch(c -> c.startsWith("task_1 ") && c.contains("owner alice")));
                assertThat(cards(b, "pending")).noneMatch(c -> c.startsWith("task_1 "));
                // the board reads the task table, the feed the event stream (alice's events are sequenced on their way):
                // both get there, in either order
                await("alice's tool calls are in the feed").atMost(PATIENCE).until(() -> {
                    List<String> calls = feed(b, "alice", "tool_call_started");
                    return calls.stream().anyMatch(t -> t.contains("claim_task")) && calls.stream().anyMatch(t -> t.contains("complete_task"));
                });
                await("alice is in the agents panel").atMost(PATIENCE).until(() -> b.text("#agents tr[data-agent='alice']")
                        .contains("schema writer"));
                await("alice's tokens are shown").atMost(PATIENCE).until(() -> b.text("#agents tr[data-agent='alice'] td:nth-of-type(4)")
                        .matches("[1-9][0-9]*"));
                assertThat(Files.readString(ws.resolve("schema.sql"))).contains("CREATE TABLE users");
                // tokens per agent from turn_completed: the scripted model reports usage, so the lead's count is not 0
                await("the lead's tokens are shown").atMost(PATIENCE).until(() -> b.text("#agents tr[data-agent='lead'] td:nth-of-type(4)")
                        .matches("[1-9][0-9]*"));
                b.script("window.scrollTo(0, 0)");
                b.screenshot(SHOTS.resolve("03-team-at-work.png"));

                // filter the feed by agent: only alice's lines stay visible
                b.script("const s = document.getElementById('agent-filter'); s.value = 'alice'; s.dispatchEvent(new Event('change'));");
                List<String> shown = new ArrayList<>();
                b.script("return [...document.querySelectorAll('#feed li')].filter(e => !e.hidden).map(e => e.dataset.agent)")
                        .forEach(n -> shown.add(n.asText()));
                assertThat(shown).isNotEmpty().containsOnly("alice");
                b.screenshot(SHOTS.resolve("04-teammate-filter.png"));
                b.script("const s = document.getElementById('agent-filter'); s.value = ''; s.dispatchEvent(new Event('change'));");

                // a plan approval: bob (plan mode) submits a plan, a person denies it with a reason by clicking
                prompt(b, "Ask bob for a docs plan.");
                await("bob's plan waits for review").atMost(PATIENCE).until(() -> b.text("#plans").contains("plan of bob"));
                assertThat(b.text("#plans .approval")).contains("1. Write docs/API.md with every endpoint");
                typeReason(b, "#plans .approval input", "add the error responses");
                b.click(b.find("#plans .approval button.deny"));
                await("the plan panel empties").atMost(PATIENCE).until(() -> b.text("#plans").contains("No plan waits for review."));
                JsonNode plans = Json.MAPPER.readTree(http.send(HttpRequest.newBuilder(URI.create(lead
                        + "/api/v1/teams/default/protocols?type=plan_approval")).header("Authorization", "Bearer " + TOKEN).build(),
                        HttpResponse.BodyHandlers.ofString()).body());
                assertThat(plans).hasSize(1);
                assertThat(plans.get(0).path("status").asText()).isEqualTo("rejected");
                assertThat(plans.get(0).path("feedback").asText()).isEqualTo("add the error responses");

                // a plan approved by clicking: carol (plan mode) may then change files, and does
                prompt(b, "Ask carol for a changelog plan.");
                await("carol's plan waits for review").atMost(PATIENCE).until(() -> b.text("#plans").contains("plan of carol"));
                assertThat(b.text("#plans .approval")).contains("1. Write CHANGELOG.md for the users API");
                assertThat(Files.exists(ws.resolve("CHANGELOG.md"))).as("nothing written before the approval").isFalse();
                minContrast = Math.min(minContrast, contrast(b, "app with a plan waiting"));
                b.screenshot(SHOTS.resolve("04c-plan-approval.png"));
                b.click(b.find("#plans .approval button.approve"));
                await("the plan panel empties").atMost(PATIENCE).until(() -> b.text("#plans").contains("No plan waits for review."));
                await("carol writes once approved").atMost(PATIENCE).until(() -> feed(b, "carol", "tool_call_finished").stream()
                        .anyMatch(t -> t.contains("← write_file")));
                assertThat(Files.readString(ws.resolve("CHANGELOG.md"))).contains("- the users API");
                JsonNode carols = Json.MAPPER.readTree(http.send(HttpRequest.newBuilder(URI.create(lead
                        + "/api/v1/teams/default/protocols?type=plan_approval")).header("Authorization", "Bearer " + TOKEN).build(),
                        HttpResponse.BodyHandlers.ofString()).body());
                assertThat(carols).anyMatch(p -> p.path("sender").asText().equals("carol") && p.path("status").asText().equals("approved"));

                // usage per agent: the usage endpoint's table, a row for the lead and one for the teammate; the scripted
                // model has no price, so its cost is "unknown price", never $0
                await("usage per agent is shown").atMost(PATIENCE).until(() -> {
                    String u = b.text("#usage");
                    return u.contains("Cached") && u.contains("Cache write") && u.contains("lead") && u.contains("alice");
                });
                assertThat(b.text("#usage")).contains("unknown price").contains("Unknown price: no price for")
                        .doesNotContain("$0.0000");
                assertThat(b.text("#agents tr[data-agent='lead']")).contains("unknown price");
                b.screenshot(SHOTS.resolve("04b-usage.png"));

                // cron jobs through the lead's proxy to scheduler-service: add, see, remove
                b.type(b.find("#cron-expr"), "*/30 * * * *");
                b.type(b.find("#cron-prompt"), "check the build");
                b.click(b.find("#cron-add"));
                await("the cron job is listed").atMost(PATIENCE).until(() -> b.text("#crons").contains("check the build"));
                assertThat(b.text("#cron-status")).startsWith("added ");
                // a bad schedule is refused with the scheduler's reason
                b.type(b.find("#cron-expr"), "not a cron");
                b.type(b.find("#cron-prompt"), "never");
                b.click(b.find("#cron-add"));
                await("the bad schedule is refused").atMost(PATIENCE).until(() -> b.text("#cron-status").startsWith("failed: "));
                assertThat(b.text("#cron-status")).isEqualTo("failed: cron needs 5 fields (minute hour day-of-month month"
                        + " day-of-week), got 3 in 'not a cron'");
                b.screenshot(SHOTS.resolve("05-crons.png"));
                b.click(b.find("#crons li[data-cron-id] button"));
                await("the cron job is gone").atMost(PATIENCE).until(() -> b.text("#crons").contains("No cron jobs."));

                // the stream drops (closed under the page) and is reopened after the last seq shown: new events arrive, none twice
                long before = b.script("return state.lastSeq").asLong();
                b.script("state.source.close(); setConn('dropped'); openStream();");
                await("the stream is live again").atMost(PATIENCE).until(() -> b.text("#conn").equals("events: live"));
                prompt(b, "Anything else?");
                await("events after the drop").atMost(PATIENCE).until(() -> b.script("return [...document.querySelectorAll("
                        + "'#feed li[data-type=turn_completed]')].some(e => Number(e.dataset.seq) > arguments[0])", before).asBoolean());
                List<Long> seqs = new ArrayList<>();
                b.script("return [...document.querySelectorAll('#feed li')].map(e => Number(e.dataset.seq))").forEach(n -> seqs.add(n.asLong()));
                assertThat(seqs).doesNotHaveDuplicates().isSorted();

                // interrupt a running turn: the lead's `rm -r logs` waits for a person; the button ends that turn, cancelled,
                // and the command never runs
                prompt(b, "Remove the old logs.");
                await("the lead's turn waits for approval").atMost(PATIENCE).until(() -> feed(b, "lead", "approval_requested").stream()
                        .anyMatch(t -> t.contains("rm -r logs")));
                long asked = b.script("return Math.max(...[...document.querySelectorAll('#feed li[data-type=approval_requested]')]"
                        + ".filter(e => e.textContent.includes('rm -r logs')).map(e => Number(e.dataset.seq)))").asLong();
                b.click(b.find("#interrupt"));
                await("interrupt is accepted").atMost(PATIENCE).until(() -> b.text("#prompt-status").equals("interrupt sent"));
                await("the turn ends cancelled").atMost(PATIENCE).until(() -> b.script("return [...document.querySelectorAll("
                        + "'#feed li[data-agent=lead][data-type=turn_completed]')].filter(e => Number(e.dataset.seq) > arguments[0])"
                        + ".map(e => e.textContent)", asked).toString().contains("cancelled"));
                assertThat(Files.exists(ws.resolve("logs/old.log"))).as("the interrupted command did not run").isTrue();
                // the request of the ended turn is cancelled: nobody is asked to answer it any more
                await("the interrupted turn's approval is cancelled").atMost(PATIENCE).until(() -> feed(b, "lead", "approval_resolved")
                        .stream().anyMatch(t -> t.contains("cancelled")));
                await("the approvals panel empties").atMost(PATIENCE).until(() -> b.text("#approvals").contains("Nothing waits for you."));
                b.screenshot(SHOTS.resolve("06-interrupted.png"));

                // log out: the cookie is gone, the login is back
                b.click(b.find("#logout"));
                waitVisible(b, "#login-view");
                b.open(lead + "/");
                waitVisible(b, "#login-view");
                assertThat(visible(b, "#app")).as("logged out: no data view").isFalse();

                // `cohort dashboard --team default` prints a fresh link: it logs in again, on that team
                String fresh = dashboardLink(lead);
                assertThat(fresh).matches(Pattern.quote(lead) + "/#team=default&code=[A-Za-z0-9_-]{43}");
                b.open("about:blank");
                b.open(fresh);
                waitVisible(b, "#app");
                await("the stream is live after the fresh link").atMost(PATIENCE).until(() -> b.text("#conn").equals("events: live"));
                assertThat(b.script("return location.href").asText()).isEqualTo(lead + "/#team=default");
                b.click(b.find("#logout"));
                waitVisible(b, "#login-view");
                System.out.printf("[contrast] minimum measured: %.2f:1%n", minContrast);
            }
        } finally {
            UpCommandIT.kill(up);
        }
    }

    /** {@code cohort dashboard --team default} in this JVM (the test's token), its stdout: the link. */
    private static String dashboardLink(String lead) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        int rc;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            System.setOut(o);
            rc = new picocli.CommandLine(new Main()).execute("dashboard", "--team", "default", "--url", lead, "--token", TOKEN);
        } finally {
            System.setOut(saved);
        }
        assertThat(rc).isZero();
        return out.toString(StandardCharsets.UTF_8).strip();
    }

    /**
     * WCAG 2.x contrast, measured in the page: every rendered element with text of its own (and every filled or
     * placeholder-showing field) — its computed colour against its effective background (its own and its ancestors'
     * background colours composited until an opaque one; the canvas is white). Fails below 4.5:1, or 3:1 for large
     * text (24 px, or 18.66 px bold). Returns the minimum measured.
     */
    private static double contrast(WebDriver b, String view) {
        JsonNode r = b.script(CONTRAST_JS);
        System.out.printf("[contrast] %s: %d texts, minimum %.2f:1 at %s%n", view, r.path("checked").asInt(),
                r.path("min").asDouble(), r.path("minAt").asText());
        assertThat(r.path("checked").asInt()).as("texts measured in the %s", view).isGreaterThan(5);
        assertThat(r.path("failures")).as("texts below the WCAG AA contrast in the %s", view).isEmpty();
        return r.path("min").asDouble();
    }

    static final String CONTRAST_JS = """
            const parse = (c) => { const m = /rgba?\\(([^)]*)\\)/.exec(c || ''); if (!m) return null;
              const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
            const over = (t, u) => [0, 1, 2].map((i) => t[i] * t[3] + u[i] * (1 - t[3])).concat([1]);
            const lin = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
            const lum = (c) => 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
            const background = (el) => {
              const layers = [];
              for (let e = el; e; e = e.parentElement) {
                const c = parse(getComputedStyle(e).backgroundColor);
                if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
              }
              let bg = [255, 255, 255, 1];
              for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
              return bg;
            };
            const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string'
              ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
            let min = Infinity, minAt = '', checked = 0;
            const failures = [];
            for (const e of document.body.querySelectorAll('*')) {
              if (['SCRIPT', 'STYLE', 'OPTION', 'BR'].includes(e.tagName)) continue;
              const own = [...e.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('').trim();
              const field = (e.tagName === 'INPUT' && !['checkbox', 'radio', 'hidden'].includes(e.type))
                || e.tagName === 'TEXTAREA' || e.tagName === 'SELECT';
              if (!own && !field) continue;
              if (!e.getClientRects().length || !e.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
              const cs = getComputedStyle(e);
              let fg = parse(cs.color);
              let text = own;
              if (field && !own) {
                if (e.tagName !== 'SELECT' && !e.value) {
                  if (!e.placeholder) continue;
                  fg = parse(getComputedStyle(e, '::placeholder').color);
                  text = 'placeholder ' + e.placeholder;
                } else {
                  text = e.tagName === 'SELECT' ? (e.selectedOptions[0] ? e.selectedOptions[0].text : '') : '(value)';
                }
              }
              if (!fg) continue;
              const bg = background(e);
              if (fg[3] < 1) fg = over(fg, bg);
              const l1 = lum(fg), l2 = lum(bg);
              const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
              const size = parseFloat(cs.fontSize), bold = parseInt(cs.fontWeight, 10) >= 700;
              const large = size >= 24 || (size >= 18.66 && bold);
              checked++;
              const where = name(e) + ' "' + text.slice(0, 40) + '" ' + cs.color + ' on rgb(' + bg.slice(0, 3).map(Math.round).join(', ') + ')';
              if (ratio < min) { min = ratio; minAt = where; }
              if (ratio < (large ? 3 : 4.5)) failures.push(where + ' = ' + ratio.toFixed(2) + ':1');
            }
            return { min, minAt, checked, failures };""";

    private static void prompt(WebDriver b, String text) {
        String box = b.find("#prompt-text");
        b.type(box, text);
        b.click(b.find("#prompt-send"));
        await("the prompt is sent").atMost(PATIENCE).until(() -> b.text("#prompt-status").startsWith("sent ("));
        b.script("document.getElementById('prompt-status').textContent = ''");
    }

    private static List<String> cards(WebDriver b, String column) {
        List<String> out = new ArrayList<>();
        b.script("return [...document.querySelectorAll('#col-" + column + " .task')].map(e => e.innerText.replace(/\\s+/g, ' ').trim())")
                .forEach(n -> out.add(n.asText()));
        return out;
    }

    private static List<String> feed(WebDriver b, String agent, String type) {
        List<String> out = new ArrayList<>();
        b.script("return [...document.querySelectorAll('#feed li')].filter(e => e.dataset.agent === arguments[0]"
                + " && e.dataset.type === arguments[1]).map(e => e.textContent)", agent, type).forEach(n -> out.add(n.asText()));
        return out;
    }

    private static boolean visible(WebDriver b, String css) {
        // rendered, not only un-hidden: a CSS rule that overrides [hidden] would show both views
        return b.script("const e = document.querySelector(arguments[0]); return !!e && e.getClientRects().length > 0", css).asBoolean();
    }

    private static void waitVisible(WebDriver b, String css) {
        await(css + " is shown").atMost(PATIENCE).until(() -> visible(b, css));
    }

    /**
     * Types a reason into the first input matching {@code css} and waits until the page holds it: the panels are drawn
     * again as events arrive, and a box drawn while the keys were being sent starts from what the page had recorded,
     * so the text is typed again until the box the buttons belong to shows it.
     */
    private static void typeReason(WebDriver b, String css, String text) {
        await("the reason is in the box").atMost(PATIENCE).ignoreExceptions().until(() -> {
            String now = b.script("const e = document.querySelector(arguments[0]); return e ? e.value : null", css).asText();
            if (text.equals(now)) {
                return true;
            }
            String input = b.find(css);
            b.clear(input);
            b.type(input, text);
            return false;
        });
    }
}
