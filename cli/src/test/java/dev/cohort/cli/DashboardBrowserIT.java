package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard (#19) in a real headless Chromium against real services: {@code cohort up} with the scripted model
 * ({@code dashboard-scenario.json}) and an API token, Debian's chromium driven over WebDriver. A person opens the page,
 * logs in (a wrong token first), plans work onto the board, watches the lead's {@code rm -r build} wait for approval,
 * approves it by clicking and sees the tool result; a teammate spawned by the lead shows up under its own name and
 * moves task_1 from "pending" to "completed"; the feed filters by agent; a plan of a teammate in plan mode is denied
 * with a reason by clicking; a cron job is added and removed through the
 * lead's proxy; interrupt with no running turn says why. Screenshots land in {@code target/dashboard-screenshots/}.
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
        Path scenario = tmp.resolve("scenario.json");
        try (InputStream in = DashboardBrowserIT.class.getResourceAsStream("dashboard-scenario.json")) {
            Files.write(scenario, in.readAllBytes());
        }
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Files.createDirectories(ws.resolve("build"));
        Files.writeString(ws.resolve("build/app.jar"), "not really a jar\n");
        UpCommandIT.Up up = UpCommandIT.start(tmp, scenario, Map.of("COHORT_API_TOKEN", TOKEN));
        try {
            UpCommandIT.awaitReady(up);
            JsonNode run = Json.MAPPER.readTree(tmp.resolve("home").resolve("up.json").toFile());
            String lead = run.get("leadUrl").asText();
            // `cohort up` names the dashboard, and never prints the token
            assertThat(up.out()).anyMatch(l -> l.strip().equals("dashboard" + " ".repeat(12) + lead + "/"))
                    .noneMatch(l -> l.contains(TOKEN));

            HttpClient http = HttpClient.newHttpClient();
            // the page and its assets are open (they hold no data); the API is not, without a token or a cookie
            assertThat(http.send(HttpRequest.newBuilder(URI.create(lead + "/")).build(), HttpResponse.BodyHandlers.ofString()).body())
                    .contains("<title>Cohort dashboard</title>");
            assertThat(http.send(HttpRequest.newBuilder(URI.create(lead + "/api/v1/teams")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
            assertThat(http.send(HttpRequest.newBuilder(URI.create(lead + "/api/v1/teams")).header("Cookie",
                    "cohort_session=v1.99999999999.forged").build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);

            try (WebDriver b = WebDriver.start(Files.createDirectories(tmp.resolve("chromium-profile")), tmp.resolve("chromedriver.log"))) {
                b.open(lead + "/");
                waitVisible(b, "#login-view");
                assertThat(b.focusedId()).as("the token field has the focus").isEqualTo("login-token");
                b.screenshot(SHOTS.resolve("01-login.png"));

                // a wrong token: a clear message, still logged out
                b.type(b.find("#login-token"), "not-the-token");
                b.click(b.find("#login-submit"));
                await("the wrong token is refused").atMost(PATIENCE).until(() -> b.text("#login-error").contains("wrong API token"));
                assertThat(visible(b, "#app")).isFalse();

                // the right one, with the keyboard only: type, Enter
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
                b.type(b.find("#approvals .approval input"), "build output is disposable");
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
                b.type(b.find("#plans .approval input"), "add the error responses");
                b.click(b.find("#plans .approval button.deny"));
                await("the plan panel empties").atMost(PATIENCE).until(() -> b.text("#plans").contains("No plan waits for review."));
                JsonNode plans = Json.MAPPER.readTree(http.send(HttpRequest.newBuilder(URI.create(lead
                        + "/api/v1/teams/default/protocols?type=plan_approval")).header("Authorization", "Bearer " + TOKEN).build(),
                        HttpResponse.BodyHandlers.ofString()).body());
                assertThat(plans).hasSize(1);
                assertThat(plans.get(0).path("status").asText()).isEqualTo("rejected");
                assertThat(plans.get(0).path("feedback").asText()).isEqualTo("add the error responses");

                // usage per agent: the usage endpoint's table, a row for the lead and one for the teammate
                await("usage per agent is shown").atMost(PATIENCE).until(() -> {
                    String u = b.text("#usage");
                    return u.contains("Cached") && u.contains("lead") && u.contains("alice");
                });
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

                // interrupt: with nothing running the page says so (alice's result may still give the lead an inbox turn,
                // which the button then ends: both answers are the API's, shown as they are)
                b.click(b.find("#interrupt"));
                await("interrupt answers").atMost(PATIENCE).until(() -> {
                    String st = b.text("#prompt-status");
                    return st.equals("interrupt sent") || st.contains("has no turn in progress");
                });

                // log out: the cookie is gone, the login is back
                b.click(b.find("#logout"));
                waitVisible(b, "#login-view");
                b.open(lead + "/");
                waitVisible(b, "#login-view");
                assertThat(visible(b, "#app")).as("logged out: no data view").isFalse();
            }
        } finally {
            UpCommandIT.kill(up);
        }
    }

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
}
