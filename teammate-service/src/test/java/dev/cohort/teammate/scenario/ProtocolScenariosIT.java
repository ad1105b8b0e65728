package dev.cohort.teammate.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.devstack.model.RecordedRequest;
import dev.cohort.devstack.model.Scenario;
import dev.cohort.teammate.protocols.TeammateProtocols;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The seed's team-protocol "try these prompts" end to end with real processes (tool runner, lead-service, one
 * teammate-service replica), the scripted model over HTTP, a real broker and PostgreSQL: (1) alice creates config.py
 * and is asked to shut down: she answers from her host while idle, without a model call, and the lead records the
 * approval; (2) bob is asked for a plan before he creates schema.sql: his write is refused by his host until a plan is
 * approved — the first plan rejected by a person over HTTP, the revised one approved by the lead's review_plan; (3) a
 * teammate that cannot answer in time (inside a tool call that does not end): the request expires after its deadline,
 * the lead releases its task and shows it stopped, and its host stops it without a further model call once the call
 * ends.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProtocolScenariosIT {

    private static final Duration PATIENCE = Duration.ofMinutes(4);
    private static final String SHUTDOWN_TIMEOUT = "15s";

    private TeamStack stack;

    @BeforeAll
    void start() {
        // a short shutdown deadline, so the unanswered request below expires quickly; an idle teammate answers in
        // milliseconds, far inside it
        stack = TeamStack.start(1, Map.of("COHORT_PROTOCOLS_SHUTDOWN_TIMEOUT", SHUTDOWN_TIMEOUT));
    }

    @AfterAll
    void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    private void load(String rules) {
        stack.appendRules(rules);
    }

    // ---- prompt 1: the shutdown handshake

    @Test
    void aliceCreatesConfigPyThenAnswersTheShutdownRequestFromHerHostWithoutAModelCall() throws Exception {
        String team = stack.createTeam("s16a");
        load("""
                {"name":"a-lead-spawn","match":{"agent":"s16a/lead","lastRole":"user","lastMessage":"Spawn a backend developer named alice"},
                 "reply":{"toolCalls":[{"name":"spawn_teammate","arguments":{"name":"alice","role":"backend developer","prompt":"Create config.py with DEBUG = False."}}]}},
                {"name":"a-lead-shutdown","match":{"agent":"s16a/lead","lastRole":"user","lastMessage":"from=\\"alice\\" type=\\"result\\"[^>]*status=\\"completed\\""},
                 "reply":{"toolCalls":[{"name":"request_shutdown","arguments":{"teammate":"alice","reason":"config.py is done"}}]}},
                {"name":"a-lead-tool","match":{"agent":"s16a/lead","lastRole":"tool"},"reply":{"text":"on it"}},
                {"name":"a-lead-bye","match":{"agent":"s16a/lead","lastRole":"user","lastMessage":"\\\\[shutdown_response req:"},"reply":{"text":"alice has shut down."}},
                {"name":"a-lead-inbox","match":{"agent":"s16a/lead","lastMessage":"\\\\[inbox\\\\]"},"reply":{"text":"noted"}},
                {"name":"a-alice-write","match":{"agent":"s16a/alice","lastRole":"user","lastMessage":"Create config\\\\.py"},
                 "reply":{"toolCalls":[{"name":"write_file","arguments":{"path":"config.py","content":"DEBUG = False\\n"}}]}},
                {"name":"a-alice-done","match":{"agent":"s16a/alice","lastRole":"tool"},"reply":{"text":"config.py created"}}
                """);
        try {
            stack.prompt(team, "Spawn a backend developer named alice, have her create config.py, then ask her to shut down"
                    + " gracefully.");

            JsonNode request = await("alice's shutdown approved").atMost(PATIENCE).pollInterval(Duration.ofMillis(250))
                    .until(() -> TeamStack.json(stack.get("/api/v1/teams/" + team + "/protocols?type=shutdown").body()),
                            a -> a.isArray() && a.size() == 1 && a.get(0).path("status").asText().equals("approved"))
                    .get(0);
            String id = request.path("id").asText();
            assertThat(request.path("target").asText()).isEqualTo("alice");
            assertThat(request.path("sender").asText()).isEqualTo("lead");
            assertThat(request.path("decidedBy").asText()).isEqualTo("alice");
            assertThat(request.path("payload").path("reason").asText()).isEqualTo("config.py is done");
            assertThat(Files.readString(stack.workspaceOf(team).resolve("config.py"))).isEqualTo("DEBUG = False\n");

            // the lead sees the answer tagged with the request id, and alice's final result with status shutdown
            await("the lead sees the answer").atMost(PATIENCE).pollInterval(Duration.ofMillis(250)).until(() -> leadRequests(
                    "s16a").stream().anyMatch(r -> seen(r).contains("[shutdown_response req:" + id
                            + "] from alice approve=true")));
            await("alice's shutdown result").atMost(PATIENCE).pollInterval(Duration.ofMillis(250)).until(() -> leadRequests(
                    "s16a").stream().anyMatch(r -> seen(r).contains("type=\"result\"")
                            && seen(r).contains("status=\"shutdown\"")));
            // answered by her host: her only model calls are the two of her work
            assertThat(stack.model().requests().stream().filter(r -> "s16a/alice".equals(r.agent())).map(RecordedRequest::rule))
                    .containsExactly("a-alice-write", "a-alice-done");
            await("alice shut down in the roster").atMost(PATIENCE).untilAsserted(() -> {
                JsonNode agents = TeamStack.json(stack.get("/api/v1/teams/" + team + "/agents").body());
                assertThat(StreamSupport.stream(agents.spliterator(), false)
                        .map(a -> a.path("name").asText() + ":" + a.path("status").asText())).contains("alice:shutdown");
            });
            assertThat(stack.events(team)).filteredOn(e -> e.path("type").asText().equals("protocol_updated"))
                    .extracting(e -> e.path("data").path("status").asText()).containsExactly("pending", "approved");
            // the lead asked once (her shutdown result, status shutdown, did not trigger another request)
            assertThat(stack.model().requests().stream().filter(r -> "a-lead-shutdown".equals(r.rule()))).hasSize(1);
        } catch (Throwable t) {
            System.out.println(stack.logs());
            printModelRequests();
            throw t;
        }
    }

    // ---- prompt 2: plan approval, enforced by the teammate's host

    @Test
    void bobIsAskedForAPlanAndCreatesSchemaSqlOnlyAfterOneIsApproved() throws Exception {
        String team = stack.createTeam("s16b");
        String write = """
                {"name":"write_file","arguments":{"path":"schema.sql","content":"CREATE TABLE users (id INT PRIMARY KEY, name TEXT, email TEXT);\\n"}}""";
        load("""
                {"name":"b-lead-start","match":{"agent":"s16b/lead","lastRole":"user","lastMessage":"Send bob to create schema\\\\.sql"},
                 "reply":{"toolCalls":[{"name":"spawn_teammate","arguments":{"name":"bob","role":"database developer","prompt":"Create schema.sql with a users table."}},
                                       {"name":"request_plan","arguments":{"teammate":"bob","content":"Plan schema.sql with a users table before writing it."}}]}},
                {"name":"b-lead-tool","match":{"agent":"s16b/lead","lastRole":"tool"},"reply":{"text":"ok"}},
                {"name":"b-lead-inbox","match":{"agent":"s16b/lead","lastMessage":"\\\\[inbox\\\\]"},"reply":{"text":"noted"}},
                {"name":"b-bob-plan","match":{"agent":"s16b/bob","lastRole":"user","lastMessage":"asks you for a plan"},
                 "reply":{"toolCalls":[%1$s,{"name":"submit_plan","arguments":{"plan":"1. CREATE TABLE users (id, name) in schema.sql"}}]}},
                {"name":"b-bob-wait","match":{"agent":"s16b/bob","lastRole":"user","lastMessage":"Task from the lead"},"reply":{"text":"waiting for the plan request"}},
                {"name":"b-bob-resubmitted","match":{"agent":"s16b/bob","lastRole":"tool","lastMessage":"Plan submitted","lastUserMessage":"Plan rejected"},
                 "reply":{"text":"revised plan submitted; waiting"}},
                {"name":"b-bob-submitted","match":{"agent":"s16b/bob","lastRole":"tool","lastMessage":"Plan submitted"},"reply":{"text":"plan submitted; waiting"}},
                {"name":"b-bob-revise","match":{"agent":"s16b/bob","lastRole":"user","lastMessage":"Plan rejected"},
                 "reply":{"toolCalls":[{"name":"submit_plan","arguments":{"plan":"2. CREATE TABLE users (id, name, email) in schema.sql"}}]}},
                {"name":"b-bob-write","match":{"agent":"s16b/bob","lastRole":"user","lastMessage":"Plan approved"},"reply":{"toolCalls":[%1$s]}},
                {"name":"b-bob-written","match":{"agent":"s16b/bob","lastRole":"tool","lastUserMessage":"Plan approved"},"reply":{"text":"schema.sql created"}}
                """.formatted(write));
        Path schema = stack.workspaceOf(team).resolve("schema.sql");
        try {
            stack.prompt(team, "Send bob to create schema.sql with a users table: first request_plan so that bob submits a "
                    + "plan with submit_plan; after the lead approves it through review_plan, bob creates it.");

            String first = pendingPlan(team, null);
            // his write before any approval was refused by his host, with the rule's sentence (seen in his next model
            // request, which may come a little after the plan is recorded)
            RecordedRequest afterPlan = await("bob's request after submit_plan").atMost(PATIENCE)
                    .pollInterval(Duration.ofMillis(100)).until(() -> stack.model().requests().stream()
                            .filter(r -> "b-bob-submitted".equals(r.rule())).findFirst(), Optional::isPresent)
                    .orElseThrow();
            assertThat(afterPlan.body().path("messages").toString()).contains(TeammateProtocols.GATE_REFUSAL);
            assertThat(schema).doesNotExist();
            await("the lead sees the plan").atMost(PATIENCE).pollInterval(Duration.ofMillis(250)).until(() -> leadRequests(
                    "s16b").stream().anyMatch(r -> seen(r).contains("[plan_approval_request req:" + first + "] from bob")
                            && seen(r).contains("1. CREATE TABLE users (id, name) in schema.sql")));

            // a person rejects the first plan over HTTP: bob is told, still gated, and submits a revised one
            HttpResponse<String> rejected = stack.post("/api/v1/teams/" + team + "/protocols/" + first,
                    Map.of("approve", false, "feedback", "add an email column"));
            assertThat(rejected.statusCode()).as(rejected.body()).isEqualTo(200);
            String second = pendingPlan(team, first);
            assertThat(schema).doesNotExist();
            assertThat(stack.model().requests().stream().filter(r -> "b-bob-revise".equals(r.rule())).findFirst().orElseThrow()
                    .body().path("messages").toString()).contains("add an email column");

            // the lead approves the revised plan with review_plan: bob creates schema.sql. First the lead has read bob's
            // result after the revision and is idle, so the prompt below is a turn of its own (not batched with it)
            await("the lead read the revision").atMost(PATIENCE).pollInterval(Duration.ofMillis(250)).until(() -> leadRequests(
                    "s16b").stream().anyMatch(r -> seen(r).contains("revised plan submitted; waiting")));
            await("the lead idle").atMost(PATIENCE).pollInterval(Duration.ofMillis(250)).until(() -> StreamSupport.stream(
                    TeamStack.json(stack.get("/api/v1/teams/" + team + "/agents").body()).spliterator(), false)
                    .anyMatch(a -> a.path("name").asText().equals("lead") && a.path("status").asText().equals("idle")));
            stack.model().append(Scenario.parse("""
                    {"rules":[{"name":"b-lead-approve","match":{"agent":"s16b/lead","lastRole":"user","lastMessage":"approve bob's revised plan"},
                     "reply":{"toolCalls":[{"name":"review_plan","arguments":{"request_id":"%s","approve":true,"feedback":"go ahead"}}]}}]}
                    """.formatted(second)));
            stack.prompt(team, "approve bob's revised plan");
            await("schema.sql created").atMost(PATIENCE).pollInterval(Duration.ofMillis(250)).until(() -> Files.exists(schema));
            assertThat(Files.readString(schema)).isEqualTo("CREATE TABLE users (id INT PRIMARY KEY, name TEXT, email TEXT);\n");

            JsonNode plans = TeamStack.json(stack.get("/api/v1/teams/" + team + "/protocols?type=plan_approval").body());
            assertThat(StreamSupport.stream(plans.spliterator(), false).map(p -> p.path("id").asText() + ":"
                    + p.path("status").asText() + ":" + p.path("decidedBy").asText()))
                    .containsExactly(first + ":rejected:user", second + ":approved:lead");
            // a decided plan cannot be decided again, and a shutdown is not a person's to decide
            assertThat(stack.post("/api/v1/teams/" + team + "/protocols/" + second, Map.of("approve", false)).statusCode())
                    .isEqualTo(409);
            await("bob's final result").atMost(PATIENCE).pollInterval(Duration.ofMillis(250)).until(() -> leadRequests("s16b")
                    .stream().anyMatch(r -> seen(r).contains("schema.sql created")));
            assertThat(stack.model().requests().stream().filter(r -> "b-bob-write".equals(r.rule()))).hasSize(1);
        } catch (Throwable t) {
            System.out.println(stack.logs());
            printModelRequests();
            throw t;
        }
    }

    // ---- a teammate that cannot answer: the request expires, the lead cleans up and stops it anyway

    @Test
    void aShutdownRequestToATeammateThatCannotAnswerExpiresReleasesItsTaskAndStopsItAnyway() throws Exception {
        String team = stack.createTeam("s16c");
        load("""
                {"name":"c-lead-spawn","match":{"agent":"s16c/lead","lastRole":"user","lastMessage":"start the build"},
                 "reply":{"toolCalls":[{"name":"spawn_teammate","arguments":{"name":"dora","role":"builder","prompt":"Run the long build."}}]}},
                {"name":"c-lead-stop","match":{"agent":"s16c/lead","lastRole":"user","lastMessage":"stop dora now"},
                 "reply":{"toolCalls":[{"name":"request_shutdown","arguments":{"teammate":"dora","reason":"no longer needed"}}]}},
                {"name":"c-lead-tool","match":{"agent":"s16c/lead","lastRole":"tool"},"reply":{"text":"ok"}},
                {"name":"c-lead-inbox","match":{"agent":"s16c/lead","lastMessage":"\\\\[inbox\\\\]"},"reply":{"text":"noted"}},
                {"name":"c-dora-build","match":{"agent":"s16c/dora","lastRole":"user","lastMessage":"Run the long build"},
                 "reply":{"toolCalls":[{"name":"bash","arguments":{"command":"while [ ! -f gate-dora ]; do sleep 0.1; done; echo built"}}]}},
                {"name":"c-dora-after","match":{"agent":"s16c/dora","lastRole":"tool"},"reply":{"text":"should never be asked"}}
                """);
        try {
            stack.prompt(team, "start the build");
            // dora is inside a tool call that does not end until the test says so: she cannot answer in time
            await("dora building").atMost(PATIENCE).untilAsserted(() -> assertThat(stack.events(team))
                    .anyMatch(e -> e.path("type").asText().equals("tool_call_started") && e.path("agent").asText().equals("dora")));
            long task;
            try (var c = stack.db(); var ps = c.prepareStatement("INSERT INTO lead.tasks (team, subject, status, owner, "
                    + "lease_token, lease_until, claimed_at, created_by) VALUES (?, 'clean the build', 'in_progress', 'dora', "
                    + "'token-dora', now() + interval '1 hour', now(), 'lead') RETURNING id")) {
                ps.setString(1, team);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    task = rs.getLong(1);
                }
            }

            stack.prompt(team, "stop dora now");
            JsonNode expired = await("the request expired").atMost(PATIENCE).pollInterval(Duration.ofMillis(250)).until(
                    () -> TeamStack.json(stack.get("/api/v1/teams/" + team + "/protocols?type=shutdown").body()),
                    a -> a.isArray() && a.size() == 1 && a.get(0).path("status").asText().equals("expired")).get(0);
            assertThat(Duration.between(Instant.parse(expired.path("createdAt").asText()),
                    Instant.parse(expired.path("decidedAt").asText()))).isGreaterThanOrEqualTo(Duration.parse("PT"
                    + SHUTDOWN_TIMEOUT.toUpperCase()));
            // the lead cleaned up without her: her task is pending again and the roster shows her stopped
            // (the release is the sweep's next statement after the expiry: awaited, not assumed)
            long held = task;
            await("her task released").atMost(PATIENCE).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
                JsonNode board = TeamStack.json(stack.get("/api/v1/teams/" + team + "/tasks/task_" + held).body());
                assertThat(board.path("status").asText()).as(board.toString()).isEqualTo("pending");
            });
            await("dora stopped in the roster").atMost(PATIENCE).untilAsserted(() -> assertThat(StreamSupport.stream(
                    TeamStack.json(stack.get("/api/v1/teams/" + team + "/agents").body()).spliterator(), false)
                    .map(a -> a.path("name").asText() + ":" + a.path("status").asText())).contains("dora:shutdown"));

            // once her call ends, her host stops her (the forced stop, or the first request, at that step boundary):
            // no further model call
            Files.writeString(stack.workspaceOf(team).resolve("gate-dora"), "open\n");
            await("dora shut down by her host").atMost(PATIENCE).pollInterval(Duration.ofMillis(250)).until(() -> {
                try (var c = stack.db(); var ps = c.prepareStatement("SELECT lifecycle FROM teammate.teammates WHERE team = ?"
                        + " AND name = 'dora'")) {
                    ps.setString(1, team);
                    try (var rs = ps.executeQuery()) {
                        return rs.next() && "shutdown".equals(rs.getString(1));
                    }
                }
            });
            assertThat(stack.model().requests().stream().filter(r -> "s16c/dora".equals(r.agent())).map(RecordedRequest::rule))
                    .containsExactly("c-dora-build");
            // her late answer (if she sent one) changed nothing: the request stays expired
            assertThat(TeamStack.json(stack.get("/api/v1/teams/" + team + "/protocols?type=shutdown").body()).get(0)
                    .path("status").asText()).isEqualTo("expired");
        } catch (Throwable t) {
            System.out.println(stack.logs());
            printModelRequests();
            throw t;
        }
    }

    // ---- helpers

    /** The id of the team's pending plan approval other than {@code not}, once there is one. */
    private String pendingPlan(String team, String not) {
        JsonNode pending = await("a pending plan").atMost(PATIENCE).pollInterval(Duration.ofMillis(250)).until(
                () -> TeamStack.json(stack.get("/api/v1/teams/" + team + "/protocols?type=plan_approval&status=pending").body()),
                a -> a.isArray() && a.size() == 1 && !a.get(0).path("id").asText().equals(not));
        assertThat(pending.get(0).path("sender").asText()).isEqualTo("bob");
        assertThat(pending.get(0).path("target").asText()).isEqualTo("lead");
        return pending.get(0).path("id").asText();
    }

    /** On a failure: every model request the scripted model received, with the rule it matched and its last message. */
    private void printModelRequests() {
        System.out.println("---- model requests ----");
        for (RecordedRequest r : stack.model().requests()) {
            String last = lastMessage(r);
            System.out.println(r.time() + " " + r.agent() + " rule=" + r.rule() + " last="
                    + (last.length() > 400 ? last.substring(0, 400) + "…" : last).replace("\n", "\\n"));
        }
        System.out.println("---- the lead's inboxes ----");
        try (var c = stack.db(); var ps = c.prepareStatement("SELECT team, seq, id, sender, type, status, received_at "
                + "FROM lead.inbox ORDER BY team, seq"); var rs = ps.executeQuery()) {
            while (rs.next()) {
                System.out.println(rs.getString(1) + " " + rs.getLong(2) + " " + rs.getString(3) + " " + rs.getString(4)
                        + " " + rs.getString(5) + " " + rs.getString(6) + " " + rs.getTimestamp(7).toInstant());
            }
        } catch (Exception e) {
            System.out.println("(the lead's inboxes could not be read: " + e + ")");
        }
    }

    private List<RecordedRequest> leadRequests(String team) {
        return stack.model().requests().stream().filter(r -> (team + "/lead").equals(r.agent())).toList();
    }

    /**
     * Everything the request showed the model: its messages' contents in order. Two inbox items that arrive close
     * together may reach the lead as its turn's input and an injection just after it (two user messages), so "the lead
     * saw X" is any of them, not only the last.
     */
    static String seen(RecordedRequest r) {
        StringBuilder b = new StringBuilder();
        for (JsonNode m : r.body().path("messages")) {
            JsonNode content = m.path("content");
            b.append(content.isTextual() ? content.asText() : content.toString()).append('\n');
        }
        return b.toString();
    }

    static String lastMessage(RecordedRequest r) {
        return TeamScenariosIT.lastMessage(r);
    }
}
