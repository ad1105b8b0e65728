package dev.cohort.teammate.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.Topics;
import dev.cohort.devstack.model.RecordedRequest;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.function.Predicate;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The team, end to end with real processes (tool runner, lead-service, one teammate-service replica), the
 * scripted model over HTTP, a real broker and PostgreSQL: the seed's agent-team "try these prompts" (alice writes
 * schema.sql, bob reads it, both report to the lead, which is woken by their results); a message chain alice → bob →
 * lead; an outside system's Kafka records and an HTTP message acted on by a teammate (a record repeated with its id
 * once, one without an id as often as it is sent). Each scenario has its own team, so its scripted
 * rules (matched on the agent id {@code <team>/<name>}) and its assertions do not meet the others'.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TeamScenariosIT {

    private static final Duration PATIENCE = Duration.ofMinutes(4);

    private TeamStack stack;

    @BeforeAll
    void start() {
        stack = TeamStack.start(1, Map.of());
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

    // ---- the seed's agent-team "try these prompts"

    @Test
    void theS15PromptsSpawnAliceWhoWritesTheSchemaAndBobWhoReadsItAndBothReportToTheLead() throws Exception {
        String team = stack.createTeam("s15");
        load("""
                {"name":"s15-lead-spawn-alice","match":{"agent":"s15/lead","lastRole":"user","lastMessage":"Spawn a backend developer named alice"},
                 "reply":{"toolCalls":[{"name":"spawn_teammate","arguments":{"name":"alice","role":"backend developer","prompt":"Create a file called schema.sql containing a users table."}}]}},
                {"name":"s15-lead-spawn-bob","match":{"agent":"s15/lead","lastRole":"user","lastMessage":"Spawn a tester named bob"},
                 "reply":{"toolCalls":[{"name":"spawn_teammate","arguments":{"name":"bob","role":"tester","prompt":"Check whether schema.sql exists and list its contents."}}]}},
                {"name":"s15-lead-spawned","match":{"agent":"s15/lead","lastRole":"tool"},"reply":{"text":"The teammate is on it."}},
                {"name":"s15-lead-alice-result","match":{"agent":"s15/lead","lastMessage":"from=\\"alice\\" type=\\"result\\""},"reply":{"text":"alice reports schema.sql is done."}},
                {"name":"s15-lead-bob-result","match":{"agent":"s15/lead","lastMessage":"from=\\"bob\\" type=\\"result\\""},"reply":{"text":"bob confirms schema.sql."}},
                {"name":"s15-lead-inbox","match":{"agent":"s15/lead","lastMessage":"\\\\[inbox\\\\]"},"reply":{"text":"noted"}},
                {"name":"s15-alice-write","match":{"agent":"s15/alice","lastRole":"user","lastMessage":"schema\\\\.sql containing a users table"},
                 "reply":{"toolCalls":[{"name":"write_file","arguments":{"path":"schema.sql","content":"CREATE TABLE users (id INT PRIMARY KEY, name TEXT);\\n"}}]}},
                {"name":"s15-alice-done","match":{"agent":"s15/alice","lastRole":"tool"},"reply":{"text":"Created schema.sql with a users table."}},
                {"name":"s15-bob-read","match":{"agent":"s15/bob","lastRole":"user","lastMessage":"Check whether schema\\\\.sql exists"},
                 "reply":{"toolCalls":[{"name":"read_file","arguments":{"path":"schema.sql"}}]}},
                {"name":"s15-bob-done","match":{"agent":"s15/bob","lastRole":"tool","lastMessage":"CREATE TABLE users"},
                 "reply":{"text":"schema.sql exists: CREATE TABLE users (id INT PRIMARY KEY, name TEXT);"}}
                """);
        try {
            stack.prompt(team, "Spawn a backend developer named alice. Have her create a file called schema.sql containing a users table.");
            awaitLeadInput("s15", "alice reports", m -> m.contains("from=\"alice\" type=\"result\""));
            Path schema = stack.workspaceOf(team).resolve("schema.sql");
            assertThat(Files.readString(schema)).isEqualTo("CREATE TABLE users (id INT PRIMARY KEY, name TEXT);\n");
            String woken = leadInput("s15", m -> m.contains("from=\"alice\" type=\"result\""));
            assertThat(woken).contains("[inbox]").contains("Created schema.sql with a users table.")
                    .contains("status=\"completed\"");

            stack.prompt(team, "Spawn a tester named bob. Have him check whether schema.sql exists and list its contents.");
            awaitLeadInput("s15", "bob reports", m -> m.contains("from=\"bob\" type=\"result\""));
            String bobsResult = leadInput("s15", m -> m.contains("from=\"bob\" type=\"result\""));
            assertThat(bobsResult).contains("schema.sql exists: CREATE TABLE users");

            // the first request of each teammate carried its prompt; identity came from the host
            assertThat(firstRequestText("s15/alice")).contains("Create a file called schema.sql containing a users table.");
            assertThat(firstRequestText("s15/bob")).contains("Check whether schema.sql exists");
            await().atMost(PATIENCE).untilAsserted(() -> {
                List<JsonNode> events = stack.events(team);
                assertThat(events).filteredOn(e -> e.path("type").asText().equals("teammate_spawned"))
                        .extracting(e -> e.path("data").path("name").asText()).containsExactlyInAnyOrder("alice", "bob");
                assertThat(events).filteredOn(e -> e.path("type").asText().equals("tool_call_finished")
                        && e.path("agent").asText().equals("alice")).isNotEmpty();
                JsonNode agents = TeamStack.json(stack.get("/api/v1/teams/" + team + "/agents").body());
                assertThat(StreamSupport.stream(agents.spliterator(), false).map(a -> a.path("name").asText() + ":"
                        + a.path("role").asText() + ":" + a.path("status").asText()))
                        .contains("alice:backend developer:idle", "bob:tester:idle");
            });
        } catch (Throwable t) {
            System.out.println(stack.logs());
            throw t;
        }
    }

    // ---- alice → bob → lead

    @Test
    void aMessageFromAliceReachesBobWhoForwardsItToTheLead() {
        String team = stack.createTeam("chain");
        load("""
                {"name":"chain-lead-spawn","match":{"agent":"chain/lead","lastRole":"user","lastMessage":"start the chain"},
                 "reply":{"toolCalls":[{"name":"spawn_teammate","arguments":{"name":"bob","role":"relay","prompt":"Wait for a note from alice and forward it to the lead."}},
                                       {"name":"spawn_teammate","arguments":{"name":"alice","role":"author","prompt":"Tell bob where the schema is."}}]}},
                {"name":"chain-lead-spawned","match":{"agent":"chain/lead","lastRole":"tool"},"reply":{"text":"both spawned"}},
                {"name":"chain-lead-inbox","match":{"agent":"chain/lead","lastMessage":"\\\\[inbox\\\\]"},"reply":{"text":"noted"}},
                {"name":"chain-alice-send","match":{"agent":"chain/alice","lastRole":"user","lastMessage":"Tell bob where the schema is"},
                 "reply":{"toolCalls":[{"name":"send_message","arguments":{"to":"bob","content":"the schema is in schema.sql"}}]}},
                {"name":"chain-alice-done","match":{"agent":"chain/alice","lastRole":"tool"},"reply":{"text":"told bob"}},
                {"name":"chain-bob-forward","match":{"agent":"chain/bob","lastRole":"user","lastMessage":"from=\\"alice\\" type=\\"message\\"[^>]*>\\nthe schema is in schema\\\\.sql"},
                 "reply":{"toolCalls":[{"name":"send_message","arguments":{"to":"lead","content":"alice says: the schema is in schema.sql"}}]}},
                {"name":"chain-bob-forwarded","match":{"agent":"chain/bob","lastRole":"tool"},"reply":{"text":"forwarded"}},
                {"name":"chain-bob-wait","match":{"agent":"chain/bob","lastRole":"user"},"reply":{"text":"waiting for alice"}}
                """);
        try {
            stack.prompt(team, "start the chain");
            awaitLeadInput("chain", "bob's forward", m -> m.contains("from=\"bob\" type=\"message\"")
                    && m.contains("alice says: the schema is in schema.sql"));
            RecordedRequest atBob = stack.model().requests().stream().filter(r -> "chain/bob".equals(r.agent())
                    && "chain-bob-forward".equals(r.rule())).findFirst().orElseThrow();
            // alice's text reached bob as quoted data naming her, not as an instruction of the user
            assertThat(lastMessage(atBob)).contains("[inbox]").contains("<message from=\"alice\" type=\"message\"");
            assertThat(stack.model().requests().stream().filter(r -> "chain-bob-forward".equals(r.rule()))).hasSize(1);
        } catch (Throwable t) {
            System.out.println(stack.logs());
            throw t;
        }
    }

    // ---- from outside: a Kafka producer and the HTTP API

    @Test
    void anOutsideKafkaRecordAndAnHttpMessageAreActedOnByATeammate_aRepeatedRecordOnce() throws Exception {
        String team = stack.createTeam("ext");
        load("""
                {"name":"ext-lead-spawn","match":{"agent":"ext/lead","lastRole":"user","lastMessage":"spawn carol"},
                 "reply":{"toolCalls":[{"name":"spawn_teammate","arguments":{"name":"carol","role":"builder","prompt":"Stand by for build requests."}}]}},
                {"name":"ext-lead-spawned","match":{"agent":"ext/lead","lastRole":"tool"},"reply":{"text":"carol spawned"}},
                {"name":"ext-lead-inbox","match":{"agent":"ext/lead","lastMessage":"\\\\[inbox\\\\]"},"reply":{"text":"noted"}},
                {"name":"ext-carol-standby","match":{"agent":"ext/carol","lastRole":"user","lastMessage":"Stand by for build requests"},"reply":{"text":"standing by"}},
                {"name":"ext-carol-build","match":{"agent":"ext/carol","lastRole":"user","lastMessage":"from=\\"ci\\" type=\\"message\\"[^>]*>\\nrun the build"},
                 "reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo build-ok-$((40+2))"}}]}},
                {"name":"ext-carol-built","match":{"agent":"ext/carol","lastRole":"tool","lastMessage":"build-ok-42"},"reply":{"text":"build passed"}},
                {"name":"ext-carol-http","match":{"agent":"ext/carol","lastRole":"user","lastMessage":"from=\\"user\\" type=\\"message\\"[^>]*>\\nstatus please"},
                 "reply":{"text":"all green"}},
                {"name":"ext-carol-note","match":{"agent":"ext/carol","lastRole":"user","lastMessage":"note the release"},"reply":{"text":"release noted"}}
                """);
        try {
            stack.prompt(team, "spawn carol");
            awaitLeadInput("ext", "carol's first result", m -> m.contains("from=\"carol\" type=\"result\"")
                    && m.contains("standing by"));

            // a record with an id, sent twice (a producer's retry): one message, one build
            String build = Json.write(Map.of("id", "ci-build-1", "team", team, "from", "ci", "to", "carol", "type", "message",
                    "content", "run the build"));
            stack.produce(Topics.TEAMMATE_INBOX, team + "/carol", build);
            stack.produce(Topics.TEAMMATE_INBOX, team + "/carol", build);
            awaitLeadInput("ext", "carol's build result", m -> m.contains("build passed"));
            // a record without an id, sent twice: each record is a message of its own (its id is its offset)
            String note = Json.write(Map.of("team", team, "from", "ci", "to", "carol", "type", "message",
                    "content", "note the release"));
            stack.produce(Topics.TEAMMATE_INBOX, team + "/carol", note);
            stack.produce(Topics.TEAMMATE_INBOX, team + "/carol", note);

            HttpResponse<String> posted = stack.post("/api/v1/teams/" + team + "/agents/carol/messages",
                    Map.of("content", "status please"));
            assertThat(posted.statusCode()).as(posted.body()).isEqualTo(202);
            awaitLeadInput("ext", "carol's http answer", m -> m.contains("all green"));

            // the HTTP message went on carol's partition after the four records, and carol acted on it: every record
            // before it was handled. The repeated build is not in carol's inbox, and no second build ran.
            assertThat(inbox(team, "carol")).filteredOn(row -> row.endsWith("run the build"))
                    .containsExactly("ci-build-1 run the build");
            assertThat(inbox(team, "carol")).filteredOn(row -> row.endsWith("note the release")).hasSize(2)
                    .allMatch(row -> row.startsWith("kafka:" + Topics.TEAMMATE_INBOX + "-"));
            assertThat(stack.model().requests().stream().filter(r -> "ext-carol-build".equals(r.rule()))).hasSize(1);
            // carol's events reach the event log on their own topic, in her order: once her answer to the HTTP message
            // is stored, every event of the turns before it is
            List<JsonNode> events = awaitEvent(team, "carol's http answer stored", e -> e.path("type").asText()
                    .equals("assistant_message") && e.path("agent").asText().equals("carol")
                    && e.path("data").path("text").asText().equals("all green"));
            assertThat(events).filteredOn(e -> e.path("type").asText().equals("tool_call_started")
                    && e.path("agent").asText().equals("carol")).hasSize(1);
            assertThat(stack.post("/api/v1/teams/" + team + "/agents/nobody/messages", Map.of("content", "x"))
                    .statusCode()).isEqualTo(404);
        } catch (Throwable t) {
            System.out.println(stack.logs());
            throw t;
        }
    }

    // ---- permission bubbling

    @Test
    void aTeammatesAskBecomesAnApprovalOfItsTeamAndRunsOnceApproved() throws Exception {
        String team = stack.createTeam("bubble");
        load("""
                {"name":"bubble-lead-spawn","match":{"agent":"bubble/lead","lastRole":"user","lastMessage":"clean up"},
                 "reply":{"toolCalls":[{"name":"spawn_teammate","arguments":{"name":"dora","role":"janitor","prompt":"Remove the build directory."}}]}},
                {"name":"bubble-lead-spawned","match":{"agent":"bubble/lead","lastRole":"tool"},"reply":{"text":"dora spawned"}},
                {"name":"bubble-lead-inbox","match":{"agent":"bubble/lead","lastMessage":"\\\\[inbox\\\\]"},"reply":{"text":"noted"}},
                {"name":"bubble-dora-rm","match":{"agent":"bubble/dora","lastRole":"user","lastMessage":"Remove the build directory"},
                 "reply":{"toolCalls":[{"name":"bash","arguments":{"command":"rm -r build && echo removed-build"}}]}},
                {"name":"bubble-dora-done","match":{"agent":"bubble/dora","lastRole":"tool","lastMessage":"removed-build"},"reply":{"text":"build removed"}}
                """);
        try {
            Path build = Files.createDirectories(stack.workspaceOf(team).resolve("build"));
            Files.writeString(build.resolve("out.o"), "x");
            stack.prompt(team, "clean up");

            // the destructive command waits for a person: an approval of the team naming the teammate
            JsonNode pending = await("dora's approval").atMost(PATIENCE).pollInterval(Duration.ofMillis(250)).until(
                    () -> TeamStack.json(stack.get("/api/v1/teams/" + team + "/approvals?status=pending").body()),
                    a -> a.isArray() && a.size() == 1);
            assertThat(pending.get(0).path("agent").asText()).isEqualTo("dora");
            assertThat(pending.get(0).path("tool").asText()).isEqualTo("bash");
            assertThat(Files.exists(build)).as("not run before the answer").isTrue();
            await("dora parked").atMost(PATIENCE).untilAsserted(() -> assertThat(stack.events(team))
                    .anyMatch(e -> e.path("type").asText().equals("teammate_phase") && e.path("agent").asText().equals("dora")
                            && e.path("data").path("phase").asText().equals("waiting_approval")));

            HttpResponse<String> answered = stack.post("/api/v1/teams/" + team + "/approvals/" + pending.get(0).path("id").asText(),
                    Map.of("approve", true));
            assertThat(answered.statusCode()).as(answered.body()).isEqualTo(200);
            awaitLeadInput("bubble", "dora's result", m -> m.contains("from=\"dora\" type=\"result\"")
                    && m.contains("build removed"));
            assertThat(Files.exists(build)).isFalse();
            assertThat(stack.model().requests().stream().filter(r -> "bubble-dora-rm".equals(r.rule()))).hasSize(1);
        } catch (Throwable t) {
            System.out.println(stack.logs());
            throw t;
        }
    }

    @Test
    void interruptingATeammateParkedOnAnApprovalCancelsTheRequestSoNobodyIsAskedAnyMore() throws Exception {
        String team = stack.createTeam("halt");
        load("""
                {"name":"halt-lead-spawn","match":{"agent":"halt/lead","lastRole":"user","lastMessage":"tidy"},
                 "reply":{"toolCalls":[{"name":"spawn_teammate","arguments":{"name":"hal","role":"janitor","prompt":"Remove the logs."}}]}},
                {"name":"halt-lead-spawned","match":{"agent":"halt/lead","lastRole":"tool"},"reply":{"text":"hal spawned"}},
                {"name":"halt-lead-inbox","match":{"agent":"halt/lead","lastMessage":"\\\\[inbox\\\\]"},"reply":{"text":"noted"}},
                {"name":"halt-hal-rm","match":{"agent":"halt/hal","lastRole":"user","lastMessage":"Remove the logs"},
                 "reply":{"toolCalls":[{"name":"bash","arguments":{"command":"rm -r logs && echo removed-logs"}}]}}
                """);
        try {
            Path logs = Files.createDirectories(stack.workspaceOf(team).resolve("logs"));
            Files.writeString(logs.resolve("old.log"), "x");
            stack.prompt(team, "tidy");
            JsonNode pending = await("hal's approval").atMost(PATIENCE).pollInterval(Duration.ofMillis(250)).until(
                    () -> TeamStack.json(stack.get("/api/v1/teams/" + team + "/approvals?status=pending").body()),
                    a -> a.isArray() && a.size() == 1);
            String approvalId = pending.get(0).path("id").asText();
            await("hal parked").atMost(PATIENCE).untilAsserted(() -> assertThat(stack.events(team))
                    .anyMatch(e -> e.path("type").asText().equals("teammate_phase") && e.path("agent").asText().equals("hal")
                            && e.path("data").path("phase").asText().equals("waiting_approval")));

            HttpResponse<String> stop = stack.post("/api/v1/teams/" + team + "/agents/hal/interrupt", Map.of());
            assertThat(stop.statusCode()).as(stop.body()).isEqualTo(202);

            // the turn is over: its request is cancelled and announced, no longer pending, and cannot be answered
            JsonNode resolved = await("the request cancelled").atMost(PATIENCE).pollInterval(Duration.ofMillis(250)).until(
                    () -> stack.events(team).stream().filter(e -> e.path("type").asText().equals("approval_resolved"))
                            .findFirst().orElse(null), e -> e != null);
            assertThat(resolved.path("agent").asText()).isEqualTo("hal");
            assertThat(resolved.path("data").path("approvalId").asText()).isEqualTo(approvalId);
            assertThat(resolved.path("data").path("status").asText()).isEqualTo("cancelled");
            assertThat(TeamStack.json(stack.get("/api/v1/teams/" + team + "/approvals?status=pending").body())).isEmpty();
            assertThat(stack.post("/api/v1/teams/" + team + "/approvals/" + approvalId, Map.of("approve", true)).statusCode())
                    .isEqualTo(409);
            awaitLeadInput("halt", "hal's result", m -> m.contains("from=\"hal\" type=\"result\""));
            assertThat(Files.exists(logs)).as("the interrupted command never ran").isTrue();
        } catch (Throwable t) {
            System.out.println(stack.logs());
            throw t;
        }
    }

    // ---- the team's permission mode applies to its teammates

    @Test
    void aTeammateOfATeamInPlanModeCannotWrite() throws Exception {
        String team = stack.createTeam("planned", "plan");
        load("""
                {"name":"planned-lead-spawn","match":{"agent":"planned/lead","lastRole":"user","lastMessage":"draft it"},
                 "reply":{"toolCalls":[{"name":"spawn_teammate","arguments":{"name":"pat","role":"writer","prompt":"Write notes.md."}}]}},
                {"name":"planned-lead-spawned","match":{"agent":"planned/lead","lastRole":"tool"},"reply":{"text":"pat spawned"}},
                {"name":"planned-lead-inbox","match":{"agent":"planned/lead","lastMessage":"\\\\[inbox\\\\]"},"reply":{"text":"noted"}},
                {"name":"planned-pat-write","match":{"agent":"planned/pat","lastRole":"user","lastMessage":"Write notes\\\\.md"},
                 "reply":{"toolCalls":[{"name":"write_file","arguments":{"path":"notes.md","content":"draft\\n"}}]}},
                {"name":"planned-pat-after","match":{"agent":"planned/pat","lastRole":"tool"},"reply":{"text":"could not write: plan mode"}}
                """);
        try {
            stack.prompt(team, "draft it");
            awaitLeadInput("planned", "pat's result", m -> m.contains("from=\"pat\" type=\"result\""));
            RecordedRequest afterCall = stack.model().requests().stream().filter(r -> "planned-pat-after".equals(r.rule()))
                    .findFirst().orElseThrow();
            // the model saw the denial naming the team's mode, and nothing was written
            assertThat(lastMessage(afterCall)).containsIgnoringCase("plan");
            assertThat(Files.exists(stack.workspaceOf(team).resolve("notes.md"))).isFalse();
        } catch (Throwable t) {
            System.out.println(stack.logs());
            throw t;
        }
    }

    // ---- budgets that act: the team's own budget stops a teammate, the lead is told, raising it helps

    @Test
    void aTeammateStoppedByTheTeamsBudgetReportsBudgetExceededAndRaisingTheBudgetLetsItWorkAgain() throws Exception {
        String team = stack.createTeam("thrift");
        assertThat(put("/api/v1/teams/" + team + "/budgets", "{\"tokensPerAgent\": 1000}").statusCode()).isEqualTo(200);
        load("""
                {"name":"thrift-lead-spawn","match":{"agent":"thrift/lead","lastRole":"user","lastMessage":"save money"},
                 "reply":{"toolCalls":[{"name":"spawn_teammate","arguments":{"name":"sam","role":"counter","prompt":"Count for a long time."}}],"usage":{"prompt_tokens":10,"completion_tokens":5}}},
                {"name":"thrift-lead-respawn","match":{"agent":"thrift/lead","lastRole":"user","lastMessage":"try again"},
                 "reply":{"toolCalls":[{"name":"spawn_teammate","arguments":{"name":"sam","role":"counter","prompt":"Finish up."}}],"usage":{"prompt_tokens":10,"completion_tokens":5}}},
                {"name":"thrift-lead-spawned","match":{"agent":"thrift/lead","lastRole":"tool"},"reply":{"text":"sam spawned","usage":{"prompt_tokens":10,"completion_tokens":5}}},
                {"name":"thrift-lead-inbox","match":{"agent":"thrift/lead","lastMessage":"\\\\[inbox\\\\]"},"reply":{"text":"noted","usage":{"prompt_tokens":10,"completion_tokens":5}}},
                {"name":"thrift-sam-finish","match":{"agent":"thrift/sam","lastMessage":"Finish up"},"reply":{"text":"finished within budget","usage":{"prompt_tokens":10,"completion_tokens":5}}},
                {"name":"thrift-sam-count","match":{"agent":"thrift/sam"},
                 "reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo counting"}}],"usage":{"prompt_tokens":500,"completion_tokens":100}}}
                """);
        try {
            stack.prompt(team, "save money");
            // 600, then 1200 tokens (past 80 %: a warning) → sam stops at its next step, its result says why
            awaitLeadInput(team, "sam's budget result", m -> m.contains("from=\"sam\" type=\"result\"")
                    && m.contains("status=\"budget_exceeded\""));
            // sam's events travel on cohort.events, its result on the lead's inbox: the lead can see the result before
            // the event log has the events. sam's shutdown phase is published after its result, behind the others on
            // the team's partition: once it is stored, so are they.
            List<JsonNode> events = awaitEvent(team, "sam's shutdown phase", e -> e.path("type").asText().equals("teammate_phase")
                    && e.path("agent").asText().equals("sam") && e.path("data").path("phase").asText().equals("shutdown"));
            assertThat(events).filteredOn(e -> e.path("type").asText().equals("budget_warning")
                    && e.path("agent").asText().equals("sam")).singleElement()
                    .satisfies(w -> assertThat(w.path("data").path("budget").asText()).isEqualTo("tokensPerAgent"));
            assertThat(events).filteredOn(e -> e.path("type").asText().equals("budget_exceeded")
                    && e.path("agent").asText().equals("sam")).singleElement().satisfies(e -> {
                        assertThat(e.path("data").path("used").asLong()).isEqualTo(1200);
                        assertThat(e.path("data").path("limit").asLong()).isEqualTo(1000);
                        assertThat(e.path("data").path("message").asText())
                                .isEqualTo("Stopped: agent thrift/sam used 1200 tokens, its budget is 1000.");
                    });
            assertThat(events).filteredOn(e -> e.path("type").asText().equals("turn_completed")
                    && e.path("agent").asText().equals("sam")).first()
                    .satisfies(e -> assertThat(e.path("data").path("reason").asText()).isEqualTo("budget_exceeded"));

            // raised through the API: the lead's next spawn of sam runs (it reads the team's budgets at its turn start)
            assertThat(put("/api/v1/teams/" + team + "/budgets", "{\"tokensPerAgent\": 100000}").statusCode()).isEqualTo(200);
            stack.prompt(team, "try again");
            awaitLeadInput(team, "sam's second result", m -> m.contains("finished within budget"));
            // its turn_completed precedes its idle phase on the team's partition (the same race as above)
            assertThat(awaitEvent(team, "sam idle again", e -> e.path("type").asText().equals("teammate_phase")
                    && e.path("agent").asText().equals("sam") && e.path("data").path("phase").asText().equals("idle")))
                    .filteredOn(e -> e.path("type").asText().equals("turn_completed") && e.path("agent").asText().equals("sam"))
                    .last().satisfies(e -> assertThat(e.path("data").path("reason").asText()).isEqualTo("completed"));
        } catch (Throwable t) {
            System.out.println(stack.logs());
            throw t;
        }
    }

    @Test
    void aTeammateStoppedByTheTeamsDayBudgetReportsBudgetExceededNamingTheReset() throws Exception {
        String team = stack.createTeam("daily");
        assertThat(put("/api/v1/teams/" + team + "/budgets", "{\"tokensPerTeamPerDay\": 1000}").statusCode())
                .isEqualTo(200);
        // each of dan's steps: 600 tokens and a tool call of half a second (so its host rereads the day's usage,
        // cached for cohort.teammate.mode-refresh, within a few steps of the ledger holding its calls); the call prints
        // the time, so its result changes and the stuck guard (5 identical calls with identical results) never ends the
        // turn first, however late the reading comes on a loaded machine
        load("""
                {"name":"daily-lead-spawn","match":{"agent":"daily/lead","lastRole":"user","lastMessage":"spend today"},
                 "reply":{"toolCalls":[{"name":"spawn_teammate","arguments":{"name":"dan","role":"counter","prompt":"Count all day."}}],"usage":{"prompt_tokens":10,"completion_tokens":5}}},
                {"name":"daily-lead-spawned","match":{"agent":"daily/lead","lastRole":"tool"},"reply":{"text":"dan spawned","usage":{"prompt_tokens":10,"completion_tokens":5}}},
                {"name":"daily-lead-inbox","match":{"agent":"daily/lead","lastMessage":"\\\\[inbox\\\\]"},"reply":{"text":"noted","usage":{"prompt_tokens":10,"completion_tokens":5}}},
                {"name":"daily-dan-count","match":{"agent":"daily/dan"},
                 "reply":{"toolCalls":[{"name":"bash","arguments":{"command":"date +counting-%s%N; sleep 0.5"}}],"usage":{"prompt_tokens":500,"completion_tokens":100}}}
                """);
        try {
            stack.prompt(team, "spend today");
            // the lead is of the same team: its turn on dan's result stops at once on the same day budget, so no model
            // request shows the result; dan's stop is awaited in the event store
            Awaitility.await("dan's turn ended on the day budget").atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofMillis(500)).until(() -> stack.events(team).stream().anyMatch(e ->
                            e.path("type").asText().equals("turn_completed") && e.path("agent").asText().equals("dan")));
            List<JsonNode> events = stack.events(team);
            assertThat(events).filteredOn(e -> e.path("type").asText().equals("budget_exceeded")
                    && e.path("agent").asText().equals("dan")).singleElement().satisfies(e -> {
                        assertThat(e.path("data").path("budget").asText()).isEqualTo("tokensPerTeamPerDay");
                        assertThat(e.path("data").path("scope").asText()).isEqualTo("team-day");
                        assertThat(e.path("data").path("used").asLong()).isGreaterThanOrEqualTo(1000);
                        assertThat(e.path("data").path("limit").asLong()).isEqualTo(1000);
                        assertThat(e.path("data").path("message").asText())
                                .startsWith("Stopped: team " + team + " used ")
                                .endsWith(" tokens today (UTC), its daily budget is 1000; it resets at 00:00 UTC.");
                    });
            // the day's 80 % warning is given at most once (whether dan sees the crossing depends on how fresh its
            // host's reading of the ledger is: a stale reading can go from below 80 % straight to the limit)
            assertThat(events).filteredOn(e -> e.path("type").asText().equals("budget_warning")
                    && e.path("agent").asText().equals("dan")).hasSizeLessThanOrEqualTo(1);
            assertThat(events).filteredOn(e -> e.path("type").asText().equals("turn_completed")
                    && e.path("agent").asText().equals("dan")).first()
                    .satisfies(e -> assertThat(e.path("data").path("reason").asText()).isEqualTo("budget_exceeded"));
        } catch (Throwable t) {
            System.out.println(stack.logs());
            throw t;
        }
    }

    private HttpResponse<String> put(String path, String body) {
        return stack.send(HttpRequest.newBuilder(URI.create(stack.leadUrl() + path))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    // ---- helpers

    /** The agent's stored inbox messages as {@code "<id> <content>"}, oldest first (teammate-service's store). */
    private List<String> inbox(String team, String agent) throws SQLException {
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                "SELECT id, content FROM teammate.inbox WHERE team = ? AND agent = ? ORDER BY seq")) {
            ps.setString(1, team);
            ps.setString(2, agent);
            List<String> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1) + " " + rs.getString(2));
                }
            }
            return out;
        }
    }

    private List<RecordedRequest> leadRequests(String team) {
        return stack.model().requests().stream().filter(r -> (team + "/lead").equals(r.agent())).toList();
    }

    /** The team's event log once it holds an event matching {@code p}. */
    private List<JsonNode> awaitEvent(String team, String what, Predicate<JsonNode> p) {
        return await(what).atMost(PATIENCE).pollInterval(Duration.ofMillis(250))
                .until(() -> stack.events(team), events -> events.stream().anyMatch(p));
    }

    /**
     * Waits for a model request of the team's lead with a new input (a message after its last assistant message)
     * matching {@code p}. Not only the last message: inbox items stored between the read that starts a turn and its
     * first model call are injected as a message of their own after the turn's input, so one request can carry two.
     */
    private void awaitLeadInput(String team, String what, Predicate<String> p) {
        await(what).atMost(PATIENCE).pollInterval(Duration.ofMillis(250))
                .until(() -> leadRequests(team).stream().anyMatch(r -> newInputs(r).stream().anyMatch(p)));
    }

    /** The first new input of a request of the team's lead that matches {@code p}. */
    private String leadInput(String team, Predicate<String> p) {
        return leadRequests(team).stream().flatMap(r -> newInputs(r).stream()).filter(p).findFirst().orElseThrow();
    }

    /** The contents of the request's messages after its last assistant message (what is new to the model). */
    static List<String> newInputs(RecordedRequest r) {
        JsonNode messages = r.body().path("messages");
        int from = messages.size();
        while (from > 0 && !"assistant".equals(messages.get(from - 1).path("role").asText())) {
            from--;
        }
        List<String> out = new ArrayList<>();
        for (int i = Math.max(from, 1); i < messages.size(); i++) {
            JsonNode content = messages.get(i).path("content");
            out.add(content.isTextual() ? content.asText() : content.toString());
        }
        return out;
    }

    private String firstRequestText(String agent) {
        RecordedRequest first = stack.model().requests().stream().filter(r -> agent.equals(r.agent())).findFirst()
                .orElseThrow(() -> new AssertionError("no request of " + agent));
        return first.body().path("messages").toString();
    }

    static String lastMessage(RecordedRequest r) {
        JsonNode messages = r.body().path("messages");
        if (messages.isEmpty()) {
            return "";
        }
        JsonNode content = messages.get(messages.size() - 1).path("content");
        return content.isTextual() ? content.asText() : content.toString();
    }
}
