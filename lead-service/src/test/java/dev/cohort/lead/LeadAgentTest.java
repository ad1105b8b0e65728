package dev.cohort.lead;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.is;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.AgentState;
import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.payload.Control;
import dev.cohort.core.protocol.Topics;
import dev.cohort.core.toolrunner.ToolCallRequest;
import dev.cohort.core.toolrunner.ToolRunnerClient;
import dev.cohort.devstack.model.ScriptedModelClient;
import dev.cohort.lead.events.EventRepository;
import dev.cohort.lead.inbox.AgentInboxPublisher;
import dev.cohort.lead.inbox.InboxRepository;
import dev.cohort.lead.prompts.PromptRepository;
import dev.cohort.lead.tasks.TaskIds;
import dev.cohort.lead.tasks.TaskService;
import dev.cohort.lead.teams.AgentRepository;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The lead agent on the engine, end to end through real parts: HTTP/Kafka prompts, the scripted model over HTTP,
 * the real tool runner (child process), approvals, inbox injection, SSE resume mid-turn. Each test uses its own
 * team so one test's turn never waits behind another's.
 */
@QuarkusTest
class LeadAgentTest {

    @ConfigProperty(name = "cohort.devstack.model-admin-url", defaultValue = "http://127.0.0.1:1")
    String modelAdmin;

    @ConfigProperty(name = "cohort.test.workspace", defaultValue = "/nonexistent")
    String workspace;

    @TestHTTPResource("/")
    URL base;

    ScriptedModelClient model;

    @BeforeEach
    void setUp() {
        model = new ScriptedModelClient(modelAdmin);
        // first, so a memory request quoting a test's prompt is never answered by that test's rules
        model.load("{\"rules\":[" + ModelRules.MEMORY_RULE + "]}");
    }

    static String newTeam(String prefix) {
        String team = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        given().contentType("application/json").body(Map.of("id", team)).post("/api/v1/teams").then().statusCode(201);
        return team;
    }

    static String prompt(String team, String text) {
        return given().contentType("application/json").body(Map.of("text", text))
                .post("/api/v1/teams/" + team + "/prompts").then().statusCode(202).extract().path("id");
    }

    @Inject
    EventRepository eventStore;

    /** The team's events as stored (the source of truth SSE replays from), in seq order, as clients see them. */
    List<JsonNode> storedEvents(String team) {
        return eventStore.after(team, 0, 100_000).stream().map(e -> (JsonNode) Json.MAPPER.valueToTree(e)).toList();
    }

    JsonNode awaitTurnCompleted(String team, String promptId) {
        return await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(300)).until(() -> storedEvents(team).stream()
                .filter(e -> e.get("type").asText().equals("turn_completed"))
                .filter(e -> promptId == null || promptId.equals(e.path("promptId").asText()))
                .findFirst().orElse(null), e -> e != null);
    }

    @Test
    void aDestructiveCommandAsksAndApprovingRunsIt() throws Exception {
        String team = newTeam("appr-yes");
        Path build = Files.createDirectories(Path.of(workspace, "teams", team, "build"));
        Files.writeString(build.resolve("out.o"), "x");
        model.append("{\"rules\":[" + rmRule(team) + "," + doneRule(team) + "]}");
        String id = prompt(team, "clean the build");

        JsonNode asked = await().atMost(Duration.ofMinutes(3)).until(() -> storedEvents(team).stream()
                .filter(e -> e.get("type").asText().equals("approval_requested")).findFirst().orElse(null), e -> e != null);
        assertThat(asked.get("data").get("tool").asText()).isEqualTo("bash");
        assertThat(asked.get("data").get("args").get("command").asText()).isEqualTo("rm -r build");
        String approvalId = asked.get("data").get("approvalId").asText();
        given().get("/api/v1/teams/" + team + "/approvals?status=pending").then().statusCode(200)
                .body("id", Matchers.hasItem(approvalId));
        assertThat(build).exists();

        given().contentType("application/json").body(Map.of("approve", true))
                .post("/api/v1/teams/" + team + "/approvals/" + approvalId).then().statusCode(200)
                .body("status", Matchers.equalTo("approved"));
        JsonNode done = awaitTurnCompleted(team, id);
        assertThat(done.get("data").get("status").asText()).isEqualTo("completed");
        assertThat(build).doesNotExist();
        assertThat(storedEvents(team)).extracting(e -> e.get("type").asText()).contains("approval_resolved");
        // answering twice is a conflict, not a second decision
        given().contentType("application/json").body(Map.of("approve", false))
                .post("/api/v1/teams/" + team + "/approvals/" + approvalId).then().statusCode(409)
                .contentType("application/problem+json");
    }

    @Test
    void interruptingATurnParkedOnAnApprovalEndsItCancelledWithoutRunningTheCall() throws Exception {
        String team = newTeam("appr-int");
        Path build = Files.createDirectories(Path.of(workspace, "teams", team, "build"));
        model.append("{\"rules\":[" + rmRule(team) + "," + doneRule(team) + "]}");
        String id = prompt(team, "clean the build");
        JsonNode asked = await().atMost(Duration.ofMinutes(3)).until(() -> storedEvents(team).stream()
                .filter(e -> e.get("type").asText().equals("approval_requested")).findFirst().orElse(null), e -> e != null);

        given().post("/api/v1/teams/" + team + "/agents/lead/interrupt").then().statusCode(202);
        JsonNode done = awaitTurnCompleted(team, id);
        assertThat(done.get("data").get("reason").asText()).isEqualTo("cancelled");
        assertThat(build).exists();
        assertThat(asked.get("data").get("status").asText()).isEqualTo("pending");
        // nobody waits for that answer any more: the request is cancelled, announced, and can no longer be answered
        String approvalId = asked.get("data").get("approvalId").asText();
        JsonNode resolved = await().atMost(Duration.ofMinutes(1)).until(() -> storedEvents(team).stream()
                .filter(e -> e.get("type").asText().equals("approval_resolved")).findFirst().orElse(null), e -> e != null);
        assertThat(resolved.get("data").get("approvalId").asText()).isEqualTo(approvalId);
        assertThat(resolved.get("data").get("status").asText()).isEqualTo("cancelled");
        assertThat(resolved.get("data").get("answer").asText()).isEqualTo("the turn ended (cancelled) before an answer");
        given().get("/api/v1/teams/" + team + "/approvals?status=pending").then().statusCode(200).body("size()", is(0));
        given().get("/api/v1/teams/" + team + "/approvals?status=cancelled").then().statusCode(200)
                .body("[0].id", is(approvalId));
        given().contentType("application/json").body("{\"approve\":true}")
                .post("/api/v1/teams/" + team + "/approvals/" + approvalId).then().statusCode(409);
    }

    @Inject
    AgentInboxPublisher leadInbox;

    @Inject
    AgentRepository agentRows;

    /**
     * A turn that never ends on its own: every tool result is answered with another call (1 s apart, so the engine's
     * 50 model calls per turn outlast any wait here), until something ends it.
     */
    private String loopRules(String team) {
        return "{\"name\":\"loop-start-" + team + "\",\"match\":{\"agent\":\"" + team + "/lead\",\"lastMessage\":\"keep going\"},"
                + "\"reply\":{\"toolCalls\":[{\"name\":\"bash\",\"arguments\":{\"command\":\"echo looping\"}}]}},"
                + "{\"name\":\"loop-" + team + "\",\"match\":{\"agent\":\"" + team + "/lead\",\"lastRole\":\"tool\"},"
                + "\"reply\":{\"delayMs\":1000,\"toolCalls\":[{\"name\":\"bash\",\"arguments\":{\"command\":\"echo looping\"}}]}}";
    }

    private String awaitRunningTurn(String team) {
        return await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(100)).until(() -> storedEvents(team).stream()
                .anyMatch(e -> e.get("type").asText().equals("tool_call_finished"))
                ? agentRows.find(team, "lead").map(r -> r.turnId()).orElse(null) : null, t -> t != null);
    }

    @Test
    void anInterruptSentAsAControlMessageOnTheLeadInboxEndsTheRunningTurnCancelledAndNeverReachesTheModel() {
        String team = newTeam("ctl-run");
        model.append("{\"rules\":[" + loopRules(team) + "]}");
        String id = prompt(team, "keep going");
        String turnId = awaitRunningTurn(team);

        // what a replica that does not host the team does: the owner's consumer acts on it
        AgentMessage control = AgentMessage.of(team, "api", "lead", "", Control.interrupt(turnId));
        leadInbox.publish(control);

        JsonNode done = awaitTurnCompleted(team, id);
        assertThat(done.get("data").get("reason").asText()).isEqualTo("cancelled");
        // a command for the host, not a message: not queued for the lead, not in any conversation
        assertThat(inboxRows.pending(team, 50)).isEmpty();
        assertThat(requestsOf(team)).noneMatch(r -> r.toString().contains(control.id()));
        assertThat(storedEvents(team).stream().filter(e -> e.get("type").asText().equals("turn_completed")).count()).isEqualTo(1);
    }

    @Test
    void aControlInterruptEndsATurnParkedOnAnApprovalCancelled() throws Exception {
        String team = newTeam("ctl-park");
        Path build = Files.createDirectories(Path.of(workspace, "teams", team, "build"));
        model.append("{\"rules\":[" + rmRule(team) + "," + doneRule(team) + "]}");
        String id = prompt(team, "clean the build");
        await().atMost(Duration.ofMinutes(3)).until(() -> storedEvents(team).stream()
                .anyMatch(e -> e.get("type").asText().equals("approval_requested")));
        String turnId = agentRows.find(team, "lead").map(r -> r.turnId()).orElseThrow();

        leadInbox.publish(AgentMessage.of(team, "api", "lead", "", Control.interrupt(turnId)));

        JsonNode done = awaitTurnCompleted(team, id);
        assertThat(done.get("data").get("reason").asText()).isEqualTo("cancelled");
        assertThat(build).exists();
    }

    @Test
    void aControlInterruptForAnIdleLeadOrAnotherTurnIsANoOpThatLeavesLaterInputAlone() {
        String team = newTeam("ctl-idle");
        model.append("{\"rules\":[{\"name\":\"bg-" + team + "\",\"match\":{\"agent\":\"" + team
                + "/lead\",\"lastMessage\":\"task_notification\"},\"reply\":{\"text\":\"noted\"}}]}");
        // nothing runs: nothing to interrupt; and one naming a turn the lead is not on (late, redelivered) is ignored
        AgentMessage idle = AgentMessage.of(team, "api", "lead", "", Control.interrupt(null));
        AgentMessage stale = AgentMessage.of(team, "api", "lead", "", Control.interrupt("turn-gone"));
        leadInbox.publish(idle);
        leadInbox.publish(stale);
        // then a real inbox message on the same partition, so consumed after both: its turn runs to completion, alone
        AgentMessage done = new AgentMessage("background_done-ctl_" + team, team, "tool-runner", "lead",
                MessageType.BACKGROUND_DONE, "Background job bg_1 completed.", Map.of("jobId", "bg_1", "status", "completed",
                        "exitCode", 0, "command", "make"), Instant.now());
        leadInbox.publish(done);
        JsonNode completed = awaitTurnCompleted(team, null);
        assertThat(completed.get("data").get("status").asText()).isEqualTo("completed");
        assertThat(requestsOf(team)).hasSize(1);
        JsonNode messages = requestsOf(team).get(0).get("body").get("messages");
        assertThat(messages.get(messages.size() - 1).get("content").asText()).startsWith("<task_notification>");
        assertThat(requestsOf(team).get(0).toString()).doesNotContain(idle.id()).doesNotContain(stale.id());
        assertThat(storedEvents(team).stream().filter(e -> e.get("type").asText().equals("turn_completed")).count()).isEqualTo(1);
    }

    @Inject
    AgroalDataSource db;

    @Test
    void interruptingOverHttpATurnThatRunsOnAnotherReplicaAsksTheOwnerThroughKafkaNamingTheTurn() throws Exception {
        String team = newTeam("ctl-http");
        // no turn anywhere: nothing to interrupt
        given().post("/api/v1/teams/" + team + "/agents/lead/interrupt").then().statusCode(409)
                .contentType("application/problem+json")
                .body("detail", Matchers.equalTo("the lead of \"" + team + "\" has no turn in progress"));
        // the saved state of a turn that another replica runs (no actor here)
        String turnId = "turn-elsewhere-" + team;
        try (var c = db.getConnection(); var ps = c.prepareStatement(
                "INSERT INTO lead.agents (team, name, state, status, turn_id) VALUES (?, 'lead', ?::jsonb, 'working', ?)")) {
            ps.setString(1, team);
            ps.setString(2, AgentState.empty().toJson());
            ps.setString(3, turnId);
            ps.executeUpdate();
        }
        given().post("/api/v1/teams/" + team + "/agents/lead/interrupt").then().statusCode(202)
                .contentType("application/json").body("interruptRequested", Matchers.equalTo(true));
        var sent = TestKafka.readUntil(Topics.LEAD_INBOX, r -> team.equals(r.key()) && r.value().contains("\"control\""),
                Duration.ofSeconds(30));
        AgentMessage m = AgentMessage.parse(sent.stream().filter(r -> team.equals(r.key()) && r.value().contains("\"control\""))
                .findFirst().orElseThrow().value());
        assertThat(m.to()).isEqualTo("lead");
        assertThat(m.from()).isEqualTo("api");
        assertThat(m.metadataAs(Control.class))
                .isEqualTo(Control.interrupt(turnId));
        given().post("/api/v1/teams/no-such-team/agents/lead/interrupt").then().statusCode(404)
                .contentType("application/problem+json");
    }

    @Inject
    InboxRepository inboxRows;

    @Test
    void aDenialReachesTheModelAndNothingRuns() throws Exception {
        String team = newTeam("appr-no");
        Path build = Files.createDirectories(Path.of(workspace, "teams", team, "build"));
        model.append("{\"rules\":[" + rmRule(team) + "," + doneRule(team) + "]}");
        String id = prompt(team, "clean the build");
        JsonNode asked = await().atMost(Duration.ofMinutes(3)).until(() -> storedEvents(team).stream()
                .filter(e -> e.get("type").asText().equals("approval_requested")).findFirst().orElse(null), e -> e != null);
        given().contentType("application/json").body(Map.of("approve", false, "reason", "keep the artifacts"))
                .post("/api/v1/teams/" + team + "/approvals/" + asked.get("data").get("approvalId").asText())
                .then().statusCode(200);
        awaitTurnCompleted(team, id);
        assertThat(build).exists();
        String toolResult = lastToolResultSentBy(team);
        assertThat(toolResult).contains("denied by the user: keep the artifacts");
    }

    @Test
    void noAnswerWithinTheTimeoutIsADenial() throws Exception {
        String team = newTeam("appr-late");
        Path build = Files.createDirectories(Path.of(workspace, "teams", team, "build"));
        model.append("{\"rules\":[" + rmRule(team) + "," + doneRule(team) + "]}");
        String id = prompt(team, "clean the build");
        awaitTurnCompleted(team, id);
        assertThat(build).exists();
        assertThat(lastToolResultSentBy(team)).contains("no answer within 15 s");
        given().get("/api/v1/teams/" + team + "/approvals?status=expired").then().statusCode(200)
                .body("size()", Matchers.equalTo(1));
    }

    @Test
    void aPromptFromAPlainKafkaProducerGivesTheSameOutcomeAsOverHttp() {
        String team = newTeam("kafka");
        model.append("{\"rules\":[{\"name\":\"calc-" + team + "\",\"match\":{\"agent\":\"" + team
                + "/lead\",\"lastMessage\":\"^what is six times seven\\\\?$\"},\"reply\":{\"text\":\"42\"}}]}");
        String httpId = prompt(team, "what is six times seven?");
        JsonNode viaHttp = awaitTurnCompleted(team, httpId);

        TestKafka.send(Topics.PROMPTS, team, "{\"team\":\"" + team + "\",\"text\":\"what is six times seven?\"}");
        await().atMost(Duration.ofMinutes(3)).until(() -> storedEvents(team).stream()
                .filter(e -> e.get("type").asText().equals("turn_completed")).count() == 2);
        List<JsonNode> all = storedEvents(team);
        List<JsonNode> answers = all.stream().filter(e -> e.get("type").asText().equals("assistant_message")).toList();
        assertThat(answers).extracting(e -> e.path("data").path("text").asText()).containsExactly("42", "42");
        List<String> httpTypes = all.stream().filter(e -> httpId.equals(e.path("promptId").asText()))
                .map(e -> e.get("type").asText()).toList();
        String kafkaId = all.stream().map(e -> e.path("promptId").asText()).filter(p -> !p.isEmpty() && !p.equals(httpId))
                .findFirst().orElseThrow();
        List<String> kafkaTypes = all.stream().filter(e -> kafkaId.equals(e.path("promptId").asText()))
                .map(e -> e.get("type").asText()).toList();
        assertThat(kafkaTypes).isEqualTo(httpTypes);
        assertThat(viaHttp.get("data").get("status").asText()).isEqualTo("completed");
    }

    @Test
    void aBackgroundCompletionWakesTheIdleLeadAsAnEscapedTaskNotification() {
        String team = newTeam("bg");
        model.append("{\"rules\":[{\"name\":\"notified-" + team + "\",\"match\":{\"agent\":\"" + team
                + "/lead\",\"lastMessage\":\"task_notification\"},\"reply\":{\"text\":\"noted\"}}]}");
        AgentMessage done = new AgentMessage("background_done-bg_" + team, team, "tool-runner", "lead",
                MessageType.BACKGROUND_DONE, "Background job bg_1 completed. First output:\n</summary><b>", Map.of("jobId", "bg_1",
                        "status", "completed", "exitCode", 0, "command", "make && echo <ok>", "outputRef", "cohort-output://bg_1"),
                Instant.now());
        TestKafka.send(Topics.LEAD_INBOX, team, Json.write(done));
        awaitTurnCompleted(team, null);
        JsonNode req = requestsOf(team).get(0);
        JsonNode messages = req.get("body").get("messages");
        String last = messages.get(messages.size() - 1).get("content").asText();
        assertThat(last).startsWith("<task_notification>").contains("<task_id>bg_1</task_id>")
                .contains("<command>make &amp;&amp; echo &lt;ok&gt;</command>")
                .contains("<output_ref>cohort-output://bg_1</output_ref>")
                .contains("&lt;/summary&gt;&lt;b&gt;").doesNotContain("</summary><b>");
        // redelivery of the same message does not wake the lead again: a second, new message sent after it on the
        // same partition (so consumed after it) wakes the lead once more, and only that one reaches the model
        TestKafka.send(Topics.LEAD_INBOX, team, Json.write(done));
        AgentMessage next = new AgentMessage("background_done-bg_2_" + team, team, "tool-runner", "lead",
                MessageType.BACKGROUND_DONE, "Background job bg_2 completed.", Map.of("jobId", "bg_2", "status",
                        "completed", "exitCode", 0, "command", "make test", "outputRef", "cohort-output://bg_2"),
                Instant.now());
        TestKafka.send(Topics.LEAD_INBOX, team, Json.write(next));
        await().atMost(Duration.ofMinutes(3)).until(() -> storedEvents(team).stream()
                .filter(e -> e.get("type").asText().equals("turn_completed")).count() >= 2);
        List<JsonNode> reqs = requestsOf(team);
        assertThat(reqs).hasSize(2);
        List<String> notifications = new ArrayList<>();
        for (JsonNode m : reqs.get(1).get("body").get("messages")) {
            if (m.path("content").asText().startsWith("<task_notification>")) {
                notifications.add(m.path("content").asText().contains("<task_id>bg_1</task_id>") ? "bg_1"
                        : m.path("content").asText().contains("<task_id>bg_2</task_id>") ? "bg_2" : "other");
            }
        }
        assertThat(notifications).containsExactly("bg_1", "bg_2");
        assertThat(storedEvents(team).stream().filter(e -> e.get("type").asText().equals("turn_started")).count())
                .isEqualTo(2);
    }

    @Inject
    PromptRepository prompts;

    @Test
    void aPromptArrivingDuringATurnIsInjectedAtTheNextStep() throws Exception {
        String team = newTeam("inject");
        Path teamWorkspace = Files.createDirectories(Path.of(workspace, "teams", team));
        // the first step's command waits (bounded) for a file the test writes once the second prompt is queued, so
        // the second prompt arrives during the turn however slow the machine is
        model.append("""
                {"rules":[
                  {"name":"slow-%1$s","match":{"agent":"%1$s/lead","lastMessage":"^start$"},
                   "reply":{"toolCalls":[{"name":"bash","arguments":{"command":"for i in $(seq 1 1000); do test -f go && break; sleep 0.1; done; echo working"}}]}},
                  {"name":"saw-%1$s","match":{"agent":"%1$s/lead","anyMessage":"also mention pears"},
                   "reply":{"text":"apples and pears"}},
                  {"name":"plain-%1$s","match":{"agent":"%1$s/lead","lastRole":"tool"},"reply":{"text":"apples"}}
                ]}""".formatted(team));
        String first = prompt(team, "start");
        await().atMost(Duration.ofMinutes(3)).until(() -> !requestsOf(team).isEmpty());
        String second = prompt(team, "also mention pears");
        await().atMost(Duration.ofMinutes(3)).until(() -> prompts.pending(team, 20).stream().anyMatch(p -> p.id().equals(second)));
        Files.writeString(teamWorkspace.resolve("go"), "");
        JsonNode done = awaitTurnCompleted(team, first);
        assertThat(done.get("data").get("status").asText()).isEqualTo("completed");
        assertThat(storedEvents(team).stream().filter(e -> e.get("type").asText().equals("assistant_message"))
                .map(e -> e.path("data").path("text").asText()).toList()).contains("apples and pears");
        // the second prompt ran inside the first turn, not as a turn of its own
        assertThat(storedEvents(team).stream().filter(e -> e.get("type").asText().equals("turn_started")).count()).isEqualTo(1);
        // and the turn's end says it answered both (how `cohort send` of the second prompt knows its turn ended)
        assertThat(done.get("data").get("promptIds")).extracting(JsonNode::asText).containsExactly(first, second);
    }

    @Test
    void thePromptAnswerNamesTheSeqAfterWhichAllOfItsTurnsEventsCome() {
        String team = newTeam("after");
        model.append("{\"rules\":[{\"name\":\"echo-" + team + "\",\"match\":{\"agent\":\"" + team
                + "/lead\",\"lastMessage\":\"^say \"},\"reply\":{\"text\":\"{{lastMessage}}\"}}]}");
        JsonPath firstAnswer = given().contentType("application/json").body(Map.of("text", "say one"))
                .post("/api/v1/teams/" + team + "/prompts").then().statusCode(202).extract().jsonPath();
        String first = firstAnswer.getString("id");
        JsonNode firstDone = awaitTurnCompleted(team, first);
        JsonPath secondAnswer = given().contentType("application/json").body(Map.of("text", "say two"))
                .post("/api/v1/teams/" + team + "/prompts").then().statusCode(202).extract().jsonPath();
        String second = secondAnswer.getString("id");
        awaitTurnCompleted(team, second);

        long firstAfter = firstAnswer.getLong("afterSeq");
        long secondAfter = secondAnswer.getLong("afterSeq");
        List<JsonNode> all = storedEvents(team);
        // every event of a prompt's turn comes after its afterSeq; the second was accepted after the first turn ended
        assertThat(all.stream().filter(e -> first.equals(e.path("promptId").asText())))
                .isNotEmpty().allMatch(e -> e.get("seq").asLong() > firstAfter);
        assertThat(all.stream().filter(e -> second.equals(e.path("promptId").asText())))
                .isNotEmpty().allMatch(e -> e.get("seq").asLong() > secondAfter);
        assertThat(secondAfter).isGreaterThanOrEqualTo(firstDone.get("seq").asLong());
        assertThat(firstDone.get("data").get("promptIds")).extracting(JsonNode::asText).containsExactly(first);
    }

    @Test
    void anSseClientConnectingMidTurnWithLastEventIdGetsEveryLaterEventOnceInOrder() throws Exception {
        String team = newTeam("sse");
        Path teamWorkspace = Files.createDirectories(Path.of(workspace, "teams", team));
        // step 2's command waits (bounded) for a file the test writes once the late client streams: the turn is
        // still running when it connects, however slow the machine is
        model.append("""
                {"rules":[
                  {"name":"step1-%1$s","match":{"agent":"%1$s/lead","lastMessage":"^go$"},
                   "reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo one"}}]}},
                  {"name":"step2-%1$s","match":{"agent":"%1$s/lead","lastMessage":"one"},
                   "reply":{"toolCalls":[{"name":"bash","arguments":{"command":"for i in $(seq 1 1000); do test -f resume && break; sleep 0.1; done; echo two"}}]}},
                  {"name":"end-%1$s","match":{"agent":"%1$s/lead","lastMessage":"two"},"reply":{"text":"done"}}
                ]}""".formatted(team));
        String id = prompt(team, "go");
        // wait until the turn is under way, then connect after the events seen so far
        List<JsonNode> early = await().atMost(Duration.ofMinutes(3)).until(() -> storedEvents(team),
                l -> l.stream().anyMatch(e -> e.get("type").asText().equals("tool_call_finished")));
        long resumeAfter = early.stream().filter(e -> e.get("type").asText().equals("tool_call_finished")).findFirst()
                .orElseThrow().get("seq").asLong();
        try (SseClient late = SseClient.open(base + "api/v1/teams/" + team + "/events", Long.toString(resumeAfter))) {
            // step 2's tool_call_started comes after resumeAfter and before the wait: the client is connected mid-turn
            await().atMost(Duration.ofMinutes(3)).until(() -> !late.received().isEmpty());
            assertThat(storedEvents(team)).extracting(e -> e.get("type").asText()).doesNotContain("turn_completed");
            Files.writeString(teamWorkspace.resolve("resume"), "");
            awaitTurnCompleted(team, id);
            List<JsonNode> all = storedEvents(team);
            List<String> expected = all.stream().filter(e -> e.get("seq").asLong() > resumeAfter)
                    .map(e -> e.get("seq").asText()).toList();
            assertThat(expected).isNotEmpty();
            await().atMost(Duration.ofMinutes(3)).until(() -> late.received().size() >= expected.size());
            assertThat(late.received()).extracting(SseClient.Received::id).containsExactlyElementsOf(expected);
        }
    }

    @Test
    void theTranscriptAndAgentStateAreReadable() {
        String team = newTeam("state");
        model.append("{\"rules\":[{\"name\":\"hello-" + team + "\",\"match\":{\"agent\":\"" + team
                + "/lead\"},\"reply\":{\"text\":\"hello there\"}}]}");
        String id = prompt(team, "say hello");
        awaitTurnCompleted(team, id);
        given().get("/api/v1/teams/" + team + "/agents").then().statusCode(200)
                .body("name", Matchers.hasItem("lead"))
                .body("find { it.name == 'lead' }.status", Matchers.equalTo("idle"));
        String transcript = given().get("/api/v1/teams/" + team + "/agents/lead/messages").then().statusCode(200)
                .extract().asString();
        assertThat(transcript).contains("say hello").contains("hello there");
        given().get("/api/v1/teams/" + team + "/agents/nobody").then().statusCode(404).contentType("application/problem+json");
        given().get("/api/v1/teams/" + team + "/protocols").then().statusCode(200).body("size()", Matchers.equalTo(0));
    }

    @Test
    void theSeedsFirstPromptLeavesHelloPyInTheWorkspaceThroughTheRealToolRunner() throws Exception {
        String team = newTeam("hello");
        model.append("""
                {"rules":[
                  {"name":"write-%1$s","match":{"agent":"%1$s/lead","lastMessage":"^create hello.py"},
                   "reply":{"toolCalls":[{"name":"write_file","arguments":{"path":"hello.py","content":"print(\\"Hello, World!\\")\\n"}}]}},
                  {"name":"read-%1$s","match":{"agent":"%1$s/lead","lastRole":"tool","lastMessage":"(?i)wrote|bytes"},
                   "reply":{"toolCalls":[{"name":"read_file","arguments":{"path":"hello.py"}}]}},
                  {"name":"end-%1$s","match":{"agent":"%1$s/lead","lastRole":"tool","lastMessage":"Hello, World"},
                   "reply":{"text":"hello.py prints Hello, World!"}}
                ]}""".formatted(team));
        String id = prompt(team, "create hello.py that prints Hello, World!, then read it back");
        JsonNode done = awaitTurnCompleted(team, id);
        assertThat(done.get("data").get("status").asText()).isEqualTo("completed");
        assertThat(Path.of(workspace, "teams", team, "hello.py")).hasContent("print(\"Hello, World!\")\n");
        assertThat(lastToolResultSentBy(team)).contains("Hello, World!");
    }

    @Test
    void aCronTurnIsMarkedAndNeverWaitsForAHuman() throws Exception {
        String team = newTeam("cron");
        Path build = Files.createDirectories(Path.of(workspace, "teams", team, "build"));
        model.append("{\"rules\":[" + rmRule(team).replace("clean the build", "\\\\[cron\\\\] clean the build") + ","
                + doneRule(team) + "]}");
        TestKafka.send(Topics.PROMPTS, team, "{\"team\":\"" + team + "\",\"text\":\"clean the build\",\"source\":\"cron\","
                + "\"cronJobId\":\"job-1\",\"id\":\"cron-" + team + "\"}");
        JsonNode done = awaitTurnCompleted(team, "cron-" + team);
        assertThat(done).isNotNull();
        assertThat(build).exists();
        assertThat(storedEvents(team)).extracting(e -> e.get("type").asText()).doesNotContain("approval_requested");
        assertThat(lastToolResultSentBy(team)).contains("permission");
        JsonNode first = requestsOf(team).get(0).get("body").get("messages");
        assertThat(first.get(first.size() - 1).get("content").asText()).isEqualTo("[cron] clean the build");
    }

    @Inject
    AgroalDataSource ds;

    @Test
    void theS12ScenarioRunsEndToEndFromAnHttpPromptThroughTheLeadsTaskTools() throws Exception {
        String team = newTeam("s12");
        long base;
        // task ids come from one sequence; tests run one at a time, so the next four ids are known in advance
        try (var c = ds.getConnection(); var rs = c.createStatement().executeQuery(
                "SELECT last_value, is_called FROM lead.tasks_id_seq")) {
            rs.next();
            base = rs.getBoolean(2) ? rs.getLong(1) : rs.getLong(1) - 1;
        }
        String t1 = "task_" + (base + 1);
        String t2 = "task_" + (base + 2);
        String t3 = "task_" + (base + 3);
        String t4 = "task_" + (base + 4);
        model.append("""
                {"rules":[
                  {"name":"plan-%1$s","match":{"agent":"%1$s/lead","lastMessage":"^plan the API"},
                   "reply":{"toolCalls":[
                     {"name":"create_task","arguments":{"subject":"setup database schema"}},
                     {"name":"create_task","arguments":{"subject":"create API endpoints","blockedBy":["%2$s"]}},
                     {"name":"create_task","arguments":{"subject":"write tests","blockedBy":["%3$s"]}},
                     {"name":"create_task","arguments":{"subject":"write docs","blockedBy":["%2$s"]}}]}},
                  {"name":"claim-blocked-%1$s","match":{"agent":"%1$s/lead","lastRole":"tool","lastMessage":"^Created %5$s"},
                   "reply":{"toolCalls":[{"name":"claim_task","arguments":{"task_id":"%4$s"}}]}},
                  {"name":"claim-schema-%1$s","match":{"agent":"%1$s/lead","lastRole":"tool","lastMessage":"is blocked by"},
                   "reply":{"toolCalls":[{"name":"claim_task","arguments":{"task_id":"%2$s"}}]}},
                  {"name":"complete-%1$s","match":{"agent":"%1$s/lead","lastRole":"tool","lastMessage":"^Claimed %2$s"},
                   "reply":{"toolCalls":[{"name":"complete_task","arguments":{"task_id":"%2$s"}}]}},
                  {"name":"end-%1$s","match":{"agent":"%1$s/lead","lastRole":"tool","lastMessage":"^Completed %2$s"},
                   "reply":{"text":"schema done; endpoints and docs are unblocked"}}
                ]}""".formatted(team, t1, t2, t3, t4));
        String id = prompt(team, "plan the API: schema, then endpoints and docs, then tests");
        JsonNode done = awaitTurnCompleted(team, id);
        assertThat(done.get("data").get("status").asText()).isEqualTo("completed");

        List<String> toolResults = new ArrayList<>();
        List<JsonNode> reqs = requestsOf(team);
        JsonNode all = reqs.get(reqs.size() - 1).get("body").get("messages");
        for (JsonNode m : all) {
            if ("tool".equals(m.path("role").asText())) {
                toolResults.add(m.path("content").asText());
            }
        }
        assertThat(toolResults).hasSize(7);
        assertThat(toolResults.get(4)).contains(t3 + " (write tests) is blocked by " + t2 + " (create API endpoints)");
        assertThat(toolResults.get(6)).startsWith("Completed " + t1)
                .contains("Unblocked: " + t2 + " (create API endpoints), " + t4 + " (write docs)")
                .doesNotContain(t3);
        given().get("/api/v1/teams/" + team + "/tasks").then().statusCode(200)
                .body("size()", Matchers.equalTo(4));
        assertThat(storedEvents(team)).extracting(e -> e.get("type").asText())
                .contains("task_created", "task_claimed", "task_completed");
    }

    @Inject
    TaskService taskService;

    @Test
    void theLeadMakesAWorktreeBoundToATaskAndRemovesItThroughTheRealToolRunner() throws Exception {
        String team = newTeam("wt");
        String task = TaskIds.format(
                taskService.create(team, "lead", "auth work", "", List.of()).id());
        model.append("""
                {"rules":[
                  {"name":"wt-%1$s","match":{"agent":"%1$s/lead","lastMessage":"^isolate the auth work$"},
                   "reply":{"toolCalls":[{"name":"create_worktree","arguments":{"name":"auth","task_id":"%2$s"}},
                                         {"name":"list_worktrees","arguments":{}}]}},
                  {"name":"wt-drop-%1$s","match":{"agent":"%1$s/lead","lastMessage":"^drop the auth worktree$"},
                   "reply":{"toolCalls":[{"name":"remove_worktree","arguments":{"name":"auth"}}]}},
                  {"name":"wt-end-%1$s","match":{"agent":"%1$s/lead","lastRole":"tool"},"reply":{"text":"ok"}}
                ]}""".formatted(team, task));
        JsonNode done = awaitTurnCompleted(team, prompt(team, "isolate the auth work"));
        assertThat(done.get("data").get("status").asText()).isEqualTo("completed");
        List<String> results = toolResults(team);
        assertThat(results.get(0)).contains("Bound " + task + " (auth work) to worktree auth.");
        assertThat(results.get(1)).contains("\"auth\"").contains("wt/auth").contains(task);
        Path teamWorkspace = Path.of(workspace, "teams", team);
        assertThat(git(teamWorkspace, "branch", "--list", "wt/auth")).contains("wt/auth");
        given().get("/api/v1/teams/" + team + "/tasks/" + task).then().statusCode(200)
                .body("worktree", Matchers.equalTo("auth"));

        done = awaitTurnCompleted(team, prompt(team, "drop the auth worktree"));
        assertThat(done.get("data").get("status").asText()).isEqualTo("completed");
        List<String> after = toolResults(team);
        assertThat(after.get(after.size() - 1)).doesNotContain("Error").endsWith("Unbound: " + task + " (auth work).");
        assertThat(git(teamWorkspace, "branch", "--list", "wt/auth")).isBlank();
        // no task stays bound to a worktree that is gone
        given().get("/api/v1/teams/" + team + "/tasks/" + task).then().statusCode(200)
                .body("worktree", Matchers.nullValue());
    }

    @ConfigProperty(name = "cohort.lead.tool-runner-url")
    String runnerUrl;

    @ConfigProperty(name = "cohort.lead.tool-runner-token")
    String runnerToken;

    @Test
    void theLeadChecksAndCancelsItsOwnBackgroundJobButNeitherATeammatesNorAnotherTeamsThroughTheRealToolRunner() {
        String team = newTeam("bg");
        String other = newTeam("bg-other");
        var runner = new ToolRunnerClient(runnerUrl, runnerToken, Duration.ofSeconds(30));
        String mine = startJob(runner, team, "lead");
        String teammates = startJob(runner, team, "alice");
        String foreign = startJob(runner, other, "lead");
        try {
            model.append("""
                    {"rules":[
                      {"name":"bg-%1$s","match":{"agent":"%1$s/lead","lastMessage":"^look after the jobs$"},
                       "reply":{"toolCalls":[{"name":"check_background","arguments":{"job_id":"%2$s"}},
                                             {"name":"check_background","arguments":{"job_id":"%3$s"}},
                                             {"name":"cancel_background","arguments":{"job_id":"%3$s"}},
                                             {"name":"cancel_background","arguments":{"job_id":"%4$s"}},
                                             {"name":"cancel_background","arguments":{"job_id":"%2$s"}}]}},
                      {"name":"bg-end-%1$s","match":{"agent":"%1$s/lead","lastRole":"tool"},"reply":{"text":"ok"}},
                      {"name":"bg-note-%1$s","match":{"agent":"%1$s/lead","lastMessage":"^<task_notification>"},
                       "reply":{"text":"ok"}}
                    ]}""".formatted(team, mine, teammates, foreign));
            JsonNode done = awaitTurnCompleted(team, prompt(team, "look after the jobs"));
            assertThat(done.get("data").get("status").asText()).isEqualTo("completed");
            List<String> results = toolResults(team);
            assertThat(results).hasSize(5);
            assertThat(results.get(0)).startsWith("Background job " + mine + ": running since ")
                    .contains("Command: sleep 300");
            String notYours = "Error: you (lead) have no background job %s; an agent can only see and cancel the jobs"
                    + " it started (rule: background-owner)";
            assertThat(results.get(1)).isEqualTo(notYours.formatted(teammates));
            assertThat(results.get(2)).isEqualTo(notYours.formatted(teammates));
            assertThat(results.get(3)).isEqualTo(notYours.formatted(foreign));
            assertThat(results.get(4)).startsWith("Cancelled. Background job " + mine + ": cancelled after ");
            // identity came from the host: the refused cancels left the other jobs running
            assertThat(runner.backgroundJob(mine).orElseThrow().status()).isEqualTo("cancelled");
            assertThat(runner.backgroundJob(teammates).orElseThrow().status()).isEqualTo("running");
            assertThat(runner.backgroundJob(foreign).orElseThrow().status()).isEqualTo("running");
        } finally {
            runner.cancelBackgroundJob(teammates);
            runner.cancelBackgroundJob(foreign);
        }
    }

    private static String startJob(ToolRunnerClient runner, String team, String agent) {
        var r = runner.call("bash", new ToolCallRequest(team, agent, "start-" + UUID.randomUUID(),
                null, Map.of("command", "sleep 300", "run_in_background", true)));
        assertThat(r.outputRef()).startsWith("cohort-output://bg_");
        return r.outputRef().substring("cohort-output://".length());
    }

    @Test
    void aTeamCreatedOnAnExistingDirectoryWorksInItAndTheLeadsToolsSeeItsFiles() throws Exception {
        String team = "own-ws-" + UUID.randomUUID().toString().substring(0, 8);
        Path dir = Files.createDirectories(Path.of(workspace, "projects", team));
        Files.writeString(dir.resolve("README.txt"), "the project's own readme\n");
        given().contentType("application/json").body(Map.of("id", team, "workspace", "projects/" + team))
                .post("/api/v1/teams").then().statusCode(201)
                .body("workspace", Matchers.equalTo(dir.toRealPath().toString()));
        model.append("""
                {"rules":[
                  {"name":"ws-%1$s","match":{"agent":"%1$s/lead","lastMessage":"^what is here$"},
                   "reply":{"toolCalls":[{"name":"read_file","arguments":{"path":"README.txt"}},
                                         {"name":"bash","arguments":{"command":"pwd"}}]}},
                  {"name":"ws-end-%1$s","match":{"agent":"%1$s/lead","lastRole":"tool"},"reply":{"text":"ok"}}
                ]}""".formatted(team));
        JsonNode done = awaitTurnCompleted(team, prompt(team, "what is here"));
        assertThat(done.get("data").get("status").asText()).isEqualTo("completed");
        List<String> results = toolResults(team);
        assertThat(results.get(0)).contains("the project's own readme");
        assertThat(results.get(1)).isEqualTo(dir.toRealPath() + "\n");
        assertThat(Path.of(workspace, "teams", team)).doesNotExist();
    }

    /** The tool results the model saw in the team's latest request. */
    private List<String> toolResults(String team) {
        List<String> out = new ArrayList<>();
        List<JsonNode> reqs = requestsOf(team);
        for (JsonNode m : reqs.get(reqs.size() - 1).get("body").get("messages")) {
            if ("tool".equals(m.path("role").asText())) {
                out.add(m.path("content").asText());
            }
        }
        return out;
    }

    private static String git(Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out;
    }

    private String rmRule(String team) {
        return "{\"name\":\"rm-" + team + "\",\"match\":{\"agent\":\"" + team + "/lead\",\"lastMessage\":\"clean the build\"},"
                + "\"reply\":{\"toolCalls\":[{\"name\":\"bash\",\"arguments\":{\"command\":\"rm -r build\"}}]}}";
    }

    private String doneRule(String team) {
        return "{\"name\":\"after-" + team + "\",\"match\":{\"agent\":\"" + team + "/lead\",\"lastRole\":\"tool\"},"
                + "\"reply\":{\"text\":\"finished\"}}";
    }

    private List<JsonNode> requestsOf(String team) {
        return model.requests().stream().filter(r -> (team + "/lead").equals(r.path("agent").asText()))
                .filter(r -> !ModelRules.isMemoryRequest(r)).toList();
    }

    private String lastToolResultSentBy(String team) {
        List<JsonNode> reqs = requestsOf(team);
        JsonNode messages = reqs.get(reqs.size() - 1).get("body").get("messages");
        for (int i = messages.size() - 1; i >= 0; i--) {
            if ("tool".equals(messages.get(i).path("role").asText())) {
                return messages.get(i).path("content").asText();
            }
        }
        return "";
    }

}
