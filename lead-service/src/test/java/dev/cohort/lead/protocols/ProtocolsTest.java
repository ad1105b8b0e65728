package dev.cohort.lead.protocols;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.payload.PlanApprovalRequest;
import dev.cohort.core.protocol.payload.PlanApprovalResponse;
import dev.cohort.core.protocol.payload.ShutdownRequest;
import dev.cohort.core.protocol.payload.ShutdownResponse;
import dev.cohort.core.protocol.Topics;
import dev.cohort.core.testing.IdentityContext;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolArguments;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.lead.events.RosterRepository;
import dev.cohort.lead.inbox.InboxFormatter;
import dev.cohort.lead.inbox.InboxRepository.InboxRow;
import dev.cohort.lead.protocols.ProtocolRepository.ProtocolRow;
import dev.cohort.lead.tasks.TaskRepository;
import dev.cohort.lead.tasks.TaskRow;
import dev.cohort.lead.teams.TeamRepository;
import dev.cohort.lead.TestKafka;
import dev.cohort.platform.sql.Sql;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.function.Predicate;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The lead's side of the team protocols through real parts: the tools driven through
 * {@code execute} with the lead's context, the records they put on the real {@code cohort.teammate.inbox}, answers on
 * the real {@code cohort.lead.inbox}, {@code lead.protocols} and {@code lead.tasks} in PostgreSQL, the background
 * expiry sweep, the protocols API. Every refusal of a transition has a test: wrong type, wrong agent, already decided,
 * unknown id, bad arguments.
 */
@QuarkusTest
class ProtocolsTest {

    private static final Duration KAFKA = Duration.ofSeconds(60);

    @Inject
    ProtocolToolProvider provider;

    @Inject
    ProtocolService service;

    @Inject
    ProtocolRepository protocols;

    @Inject
    TeamRepository teams;

    @Inject
    TaskRepository tasks;

    @Inject
    AgroalDataSource ds;

    @Inject
    RosterRepository roster;

    String team;
    ToolContext lead;
    ToolRegistry registry;

    @BeforeEach
    void setUp() {
        team = "proto-" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(teams.insert(team, null, "default")).isTrue();
        lead = IdentityContext.lead(team);
        registry = ToolRegistry.of(provider.tools());
    }

    // ---- helpers

    private ToolResult call(String tool, String argsJson) {
        Tool t = registry.find(tool).orElseThrow();
        ToolArguments.Parsed parsed = ToolArguments.parse(argsJson, t.spec().parameters());
        assertThat(parsed.problems()).as("arguments of %s", tool).isEmpty();
        return t.execute(new ToolCall("call-" + UUID.randomUUID(), tool, parsed.args()), lead);
    }

    private void teammate(String name) {
        Sql.inTransaction(ds, "spawn", c -> RosterRepository.recordSpawn(c, team, name, "backend", false));
    }

    private void shutDownInRoster(String name) {
        Sql.inTransaction(ds, "shut down", c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE lead.roster SET phase = 'shutdown', reason = 'idle' "
                    + "WHERE team = ? AND name = ?")) {
                ps.setString(1, team);
                ps.setString(2, name);
                return ps.executeUpdate();
            }
        });
    }

    private TaskRow claimedBy(String agent, String subject) {
        TaskRow t = tasks.insert(team, subject, "", "lead", new long[0], 100).task();
        return tasks.claim(team, t.id(), agent, "token-" + agent, false, 600_000.0).orElseThrow().task();
    }

    private static String reqId(ToolResult r) {
        Matcher m = Pattern.compile("req: ([0-9a-f-]{36})").matcher(r.content());
        assertThat(m.find()).as(r.content()).isTrue();
        return m.group(1);
    }

    private List<AgentMessage> teammateInbox(String name, Predicate<AgentMessage> until) {
        String key = team + "/" + name;
        List<ConsumerRecord<String, String>> seen = TestKafka.readUntil(Topics.TEAMMATE_INBOX,
                r -> key.equals(r.key()) && until.test(AgentMessage.parse(r.value())), KAFKA);
        List<AgentMessage> out = seen.stream().filter(r -> key.equals(r.key())).map(r -> AgentMessage.parse(r.value()))
                .toList();
        assertThat(out).as("records for %s", key).anyMatch(until);
        return out;
    }

    private List<JsonNode> protocolEvents() {
        return Sql.inTransaction(ds, "events", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT data::text FROM lead.events WHERE team = ? AND "
                    + "type = 'protocol_updated' ORDER BY seq")) {
                ps.setString(1, team);
                try (ResultSet rs = ps.executeQuery()) {
                    List<JsonNode> out = new ArrayList<>();
                    while (rs.next()) {
                        out.add(Json.MAPPER.readTree(rs.getString(1)));
                    }
                    return out;
                } catch (JsonProcessingException e) {
                    throw new IllegalStateException(e);
                }
            }
        });
    }

    private String submitted(String from, String plan) {
        String id = UUID.randomUUID().toString();
        service.planSubmitted(AgentMessage.of(id, team, from, "lead", plan, new PlanApprovalRequest(id), Instant.now()));
        return id;
    }

    // ---- tools

    @Test
    void theLeadGetsRequestShutdownRequestPlanAndReviewPlanAndTheyAreInItsAllowlistButNotATeammates() {
        assertThat(registry.names()).containsExactly("request_shutdown", "request_plan", "review_plan");
        assertThat(provider.tools()).allSatisfy(t -> assertThat(t.roles()).containsExactly(AgentRole.LEAD));
        assertThat(provider.roles()).containsExactly(AgentRole.LEAD);
    }

    @Test
    void requestShutdownRecordsAPendingRequestWithADeadlineAndSendsAShutdownRequestCarryingItsId() {
        teammate("alice");
        Instant before = Instant.now();
        ToolResult r = call("request_shutdown", "{\"teammate\":\"alice\",\"reason\":\"work is done\"}");

        assertThat(r.error()).as(r.content()).isFalse();
        String id = reqId(r);
        ProtocolRow row = protocols.find(team, id).orElseThrow();
        assertThat(row.type()).isEqualTo("shutdown");
        assertThat(row.sender()).isEqualTo("lead");
        assertThat(row.target()).isEqualTo("alice");
        assertThat(row.status()).isEqualTo("pending");
        assertThat(row.payload().get("reason").asText()).isEqualTo("work is done");
        assertThat(row.deadline()).isBetween(before.plusSeconds(59), Instant.now().plusSeconds(61));

        AgentMessage m = teammateInbox("alice", x -> id.equals(x.id())).stream().filter(x -> id.equals(x.id()))
                .findFirst().orElseThrow();
        assertThat(m.type()).isEqualTo(MessageType.SHUTDOWN_REQUEST);
        assertThat(m.from()).isEqualTo("lead");
        assertThat(m.metadataAs(ShutdownRequest.class)).isEqualTo(new ShutdownRequest(id, "work is done"));
        assertThat(protocolEvents()).extracting(e -> e.get("id").asText() + ":" + e.get("status").asText())
                .containsExactly(id + ":pending");
    }

    @Test
    void requestShutdownRefusesAnUnknownTeammateAShutDownOneABadNameAndASecondWhileOneIsPending() {
        teammate("alice");
        teammate("carol");
        shutDownInRoster("carol");

        ToolResult unknown = call("request_shutdown", "{\"teammate\":\"zed\"}");
        assertThat(unknown.error()).isTrue();
        assertThat(unknown.rule()).isEqualTo("protocol:unknown-teammate");
        assertThat(unknown.content()).isEqualTo("Error: no teammate 'zed' in team " + team + "; known: alice, carol");

        ToolResult down = call("request_shutdown", "{\"teammate\":\"carol\"}");
        assertThat(down.rule()).isEqualTo("protocol:not-running");
        assertThat(down.content()).isEqualTo("Error: carol is already shut down (idle): nothing to ask");

        ToolResult bad = call("request_shutdown", "{\"teammate\":\"Not A Name\"}");
        assertThat(bad.rule()).isEqualTo("arguments");
        ToolResult leadItself = call("request_shutdown", "{\"teammate\":\"lead\"}");
        assertThat(leadItself.rule()).isEqualTo("arguments");

        String first = reqId(call("request_shutdown", "{\"teammate\":\"alice\"}"));
        ToolResult again = call("request_shutdown", "{\"teammate\":\"alice\"}");
        assertThat(again.rule()).isEqualTo("protocol:already-pending");
        assertThat(again.content()).contains("req: " + first);
        assertThat(protocols.list(team, null, null)).extracting(ProtocolRow::id).containsExactly(first);
    }

    @Test
    void anApprovedShutdownResponseOnTheLeadInboxIsRecordedAndReleasesEveryTaskTheTeammateHolds() {
        teammate("alice");
        TaskRow a = claimedBy("alice", "one");
        TaskRow b = claimedBy("alice", "two");
        TaskRow other = claimedBy("bob", "three");
        String id = reqId(call("request_shutdown", "{\"teammate\":\"alice\"}"));

        AgentMessage answer = AgentMessage.of(UUID.randomUUID().toString(), team, "alice", "lead", "Shutting down.",
                new ShutdownResponse(id, true, "idle"), Instant.now());
        TestKafka.send(Topics.LEAD_INBOX, team, Json.write(answer));

        await().atMost(KAFKA).until(() -> protocols.find(team, id).orElseThrow().status().equals("approved"));
        ProtocolRow row = protocols.find(team, id).orElseThrow();
        assertThat(row.decidedBy()).isEqualTo("alice");
        assertThat(row.feedback()).isEqualTo("idle");
        assertThat(row.decidedAt()).isNotNull();
        // the release and the event follow the recorded answer (their own statements): awaited, not assumed
        await().atMost(KAFKA).untilAsserted(() -> {
            assertThat(tasks.find(team, a.id()).orElseThrow().status()).isEqualTo("pending");
            assertThat(tasks.find(team, a.id()).orElseThrow().owner()).isNull();
            assertThat(tasks.find(team, b.id()).orElseThrow().status()).isEqualTo("pending");
            assertThat(protocolEvents()).extracting(e -> e.get("status").asText()).containsExactly("pending", "approved");
        });
        assertThat(tasks.find(team, other.id()).orElseThrow().owner()).isEqualTo("bob");
    }

    @Test
    void aShutdownResponseFromTheWrongAgentOfTheWrongTypeForAnUnknownIdOrTwiceIsRefusedAndChangesNothing() {
        teammate("alice");
        String id = reqId(call("request_shutdown", "{\"teammate\":\"alice\"}"));
        String plan = submitted("alice", "a plan");

        assertThatThrownBy(() -> service.answerShutdown(team, "mallory", id, true, null))
                .isInstanceOfSatisfying(ProtocolService.Refusal.class, r -> assertThat(r.rule()).isEqualTo("protocol:wrong-agent"))
                .hasMessage("request " + id + " is addressed to alice, not mallory");
        assertThatThrownBy(() -> service.answerShutdown(team, "alice", plan, true, null))
                .isInstanceOfSatisfying(ProtocolService.Refusal.class, r -> assertThat(r.rule()).isEqualTo("protocol:wrong-type"))
                .hasMessage("request " + plan + " is a plan_approval request, not a shutdown request");
        assertThatThrownBy(() -> service.answerShutdown(team, "alice", "no-such-id", true, null))
                .isInstanceOfSatisfying(ProtocolService.Refusal.class, r -> assertThat(r.rule()).isEqualTo("protocol:unknown-request"))
                .hasMessage("unknown request id 'no-such-id' in team " + team);
        assertThat(protocols.find(team, id).orElseThrow().status()).isEqualTo("pending");

        assertThat(service.answerShutdown(team, "alice", id, true, null).status()).isEqualTo("approved");
        assertThatThrownBy(() -> service.answerShutdown(team, "alice", id, false, "changed my mind"))
                .isInstanceOfSatisfying(ProtocolService.Refusal.class, r -> assertThat(r.rule()).isEqualTo("protocol:already-decided"))
                .hasMessage("request " + id + " is already approved");
        assertThat(protocols.find(team, id).orElseThrow().status()).isEqualTo("approved");
        assertThat(protocols.find(team, plan).orElseThrow().status()).isEqualTo("pending");
    }

    @Test
    void anUnansweredShutdownExpiresReleasesTheTasksStopsTheTeammateAnywayAndTheRosterShowsIt() {
        teammate("alice");
        TaskRow held = claimedBy("alice", "half done");
        String id = UUID.randomUUID().toString();
        // a request whose deadline has passed (the service's own deadline is the configured 60 s)
        assertThat(protocols.insert(id, team, "shutdown", "lead", "alice", Json.MAPPER.createObjectNode(),
                Duration.ofSeconds(-1))).isTrue();

        // the background sweep (every cohort.protocols.sweep-interval) expires it
        await().atMost(KAFKA).until(() -> protocols.find(team, id).orElseThrow().status().equals("expired"));
        assertThat(protocols.find(team, id).orElseThrow().decidedBy()).isEqualTo("sweep");
        // the release follows the expiry (its own statement): awaited, not assumed
        await().atMost(KAFKA).until(() -> tasks.find(team, held.id()).orElseThrow().status().equals("pending"));
        AgentMessage forced = teammateInbox("alice", x -> x.type() == MessageType.SHUTDOWN_REQUEST
                && Boolean.TRUE.equals(x.metadata().get("force"))).stream()
                .filter(x -> Boolean.TRUE.equals(x.metadata().get("force"))).findFirst().orElseThrow();
        assertThat(forced.metadataAs(ShutdownRequest.class).requestId()).isEqualTo(id);
        await().atMost(KAFKA).until(() -> !given().get("/api/v1/teams/" + team + "/agents/alice").then().statusCode(200)
                .extract().as(JsonNode.class).get("status").asText().equals("starting"));
        JsonNode alice = given().get("/api/v1/teams/" + team + "/agents/alice").then().extract().as(JsonNode.class);
        assertThat(alice.get("status").asText()).isEqualTo("shutdown");
        assertThat(roster.find(team, "alice").orElseThrow().reason()).isEqualTo("shutdown request " + id
                + " expired: stopped by the lead");
        // a late answer changes nothing
        assertThatThrownBy(() -> service.answerShutdown(team, "alice", id, true, null))
                .hasMessage("request " + id + " is already expired");
    }

    // ---- plan approval

    @Test
    void requestPlanSendsAMessageThatClosesTheTeammatesGateAndRefusesAnUnknownTeammate() {
        teammate("bob");
        ToolResult r = call("request_plan", "{\"teammate\":\"bob\",\"content\":\"schema.sql with a users table\"}");
        assertThat(r.error()).as(r.content()).isFalse();
        AgentMessage m = teammateInbox("bob", x -> x.type() == MessageType.MESSAGE).stream()
                .filter(x -> x.type() == MessageType.MESSAGE).findFirst().orElseThrow();
        assertThat(m.metadata()).containsEntry("planRequired", true);
        assertThat(m.content()).startsWith("The lead asks you for a plan before you change anything")
                .endsWith("\n\nschema.sql with a users table");

        assertThat(call("request_plan", "{\"teammate\":\"zed\"}").rule()).isEqualTo("protocol:unknown-teammate");
    }

    @Test
    void aSubmittedPlanIsPendingAndReviewPlanApprovesItAndSendsTheResponseToItsSender() {
        teammate("bob");
        String id = submitted("bob", "1. write schema.sql\n2. check it");
        assertThat(protocols.find(team, id).orElseThrow()).extracting(ProtocolRow::type, ProtocolRow::sender,
                ProtocolRow::target, ProtocolRow::status).containsExactly("plan_approval", "bob", "lead", "pending");
        assertThat(protocols.find(team, id).orElseThrow().payload().get("plan").asText()).isEqualTo("1. write schema.sql\n2. check it");
        // a redelivered request changes nothing
        service.planSubmitted(AgentMessage.of(id, team, "bob", "lead", "another text", new PlanApprovalRequest(id), Instant.now()));
        assertThat(protocols.find(team, id).orElseThrow().payload().get("plan").asText()).startsWith("1. write");

        ToolResult r = call("review_plan", Json.write(Map.of("request_id", id, "approve", true, "feedback", "go ahead")));
        assertThat(r.error()).as(r.content()).isFalse();
        assertThat(r.content()).isEqualTo("Plan " + id + " of bob approved; bob may now change files.");
        AgentMessage m = teammateInbox("bob", x -> x.type() == MessageType.PLAN_APPROVAL_RESPONSE).stream()
                .filter(x -> x.type() == MessageType.PLAN_APPROVAL_RESPONSE).findFirst().orElseThrow();
        assertThat(m.from()).isEqualTo("lead");
        assertThat(m.metadataAs(PlanApprovalResponse.class)).isEqualTo(new PlanApprovalResponse(id, true, "go ahead"));
        assertThat(protocols.find(team, id).orElseThrow().decidedBy()).isEqualTo("lead");
        assertThat(protocolEvents()).extracting(e -> e.get("status").asText()).containsExactly("pending", "approved");
    }

    @Test
    void reviewPlanRefusesAShutdownIdAnUnknownIdADecidedPlanAndAnEmptyId() {
        teammate("bob");
        String shutdown = reqId(call("request_shutdown", "{\"teammate\":\"bob\"}"));
        String plan = submitted("bob", "plan");

        ToolResult wrongType = call("review_plan", Json.write(Map.of("request_id", shutdown, "approve", true)));
        assertThat(wrongType.rule()).isEqualTo("protocol:wrong-type");
        assertThat(wrongType.content()).isEqualTo("Error: request " + shutdown + " is a shutdown request, not a "
                + "plan_approval request");
        assertThat(protocols.find(team, shutdown).orElseThrow().status()).isEqualTo("pending");

        assertThat(call("review_plan", Json.write(Map.of("request_id", "nope", "approve", true))).rule())
                .isEqualTo("protocol:unknown-request");
        assertThat(call("review_plan", Json.write(Map.of("request_id", " ", "approve", true))).rule())
                .isEqualTo("arguments");

        assertThat(call("review_plan", Json.write(Map.of("request_id", plan, "approve", false, "feedback", "add an index")))
                .error()).isFalse();
        ToolResult twice = call("review_plan", Json.write(Map.of("request_id", plan, "approve", true)));
        assertThat(twice.rule()).isEqualTo("protocol:already-decided");
        assertThat(twice.content()).isEqualTo("Error: request " + plan + " is already rejected");
        assertThat(protocols.find(team, plan).orElseThrow().feedback()).isEqualTo("add an index");
    }

    @Test
    void aPlanSubmittedToSomeoneElseCannotBeReviewedByTheLead() {
        String id = UUID.randomUUID().toString();
        protocols.insert(id, team, "plan_approval", "bob", "carol", Json.MAPPER.createObjectNode(), null);
        assertThatThrownBy(() -> service.reviewPlan(team, id, true, null, "lead"))
                .hasMessage("request " + id + " is addressed to carol, not lead");
    }

    // ---- API

    @Test
    void aPersonApprovesAPlanOverHttpAndTheListFiltersByStatusAndType() {
        teammate("bob");
        String plan = submitted("bob", "the plan");
        String shutdown = reqId(call("request_shutdown", "{\"teammate\":\"bob\"}"));

        given().contentType("application/json").body("{\"approve\":true,\"feedback\":\"ok by me\"}")
                .post("/api/v1/teams/" + team + "/protocols/" + plan).then().statusCode(200)
                .body("id", Matchers.equalTo(plan)).body("status", Matchers.equalTo("approved"))
                .body("decidedBy", Matchers.equalTo("user")).body("feedback", Matchers.equalTo("ok by me"));
        AgentMessage m = teammateInbox("bob", x -> x.type() == MessageType.PLAN_APPROVAL_RESPONSE).stream()
                .filter(x -> x.type() == MessageType.PLAN_APPROVAL_RESPONSE).findFirst().orElseThrow();
        assertThat(m.metadataAs(PlanApprovalResponse.class).approve()).isTrue();

        given().get("/api/v1/teams/" + team + "/protocols").then().statusCode(200)
                .body("id", Matchers.contains(plan, shutdown));
        given().get("/api/v1/teams/" + team + "/protocols?status=pending").then().statusCode(200)
                .body("id", Matchers.contains(shutdown));
        given().get("/api/v1/teams/" + team + "/protocols?type=plan_approval").then().statusCode(200)
                .body("id", Matchers.contains(plan)).body("[0].payload.plan", Matchers.equalTo("the plan"));
        given().get("/api/v1/teams/" + team + "/protocols/" + shutdown).then().statusCode(200)
                .body("type", Matchers.equalTo("shutdown")).body("target", Matchers.equalTo("bob"));
    }

    @Test
    void theApiRefusesAShutdownDecisionADecidedPlanAnUnknownIdBadBodiesBadFiltersAndAnUnknownTeam() {
        teammate("bob");
        String plan = submitted("bob", "the plan");
        String shutdown = reqId(call("request_shutdown", "{\"teammate\":\"bob\"}"));
        String base = "/api/v1/teams/" + team + "/protocols/";

        given().contentType("application/json").body("{\"approve\":true}").post(base + shutdown).then().statusCode(409)
                .contentType(Matchers.containsString("problem+json"))
                .body("detail", Matchers.containsString("is a shutdown request: only its teammate answers it"));
        given().contentType("application/json").body("{\"approve\":true}").post(base + "nope").then().statusCode(404)
                .body("detail", Matchers.equalTo("unknown protocol request \"nope\" in team \"" + team + "\""));
        given().contentType("application/json").body("{\"feedback\":\"x\"}").post(base + plan).then().statusCode(400)
                .body("detail", Matchers.containsString("\"approve\": true|false"));
        given().contentType("application/json").body("{\"approve\":true,\"feedback\":\"" + "x".repeat(16_001) + "\"}")
                .post(base + plan).then().statusCode(400).body("detail", Matchers.containsString("the limit is 16000"));
        given().contentType("application/json").body("{\"approve\":false}").post(base + plan).then().statusCode(200);
        given().contentType("application/json").body("{\"approve\":true}").post(base + plan).then().statusCode(409)
                .body("detail", Matchers.equalTo("request " + plan + " is already rejected"));
        given().get("/api/v1/teams/" + team + "/protocols?status=done").then().statusCode(400);
        given().get("/api/v1/teams/" + team + "/protocols?type=vote").then().statusCode(400);
        given().get("/api/v1/teams/no-such-team/protocols").then().statusCode(404);
        assertThat(protocols.find(team, shutdown).orElseThrow().status()).isEqualTo("pending");
    }

    // ---- the lead's injection

    @Test
    void aPlanApprovalRequestReadsToTheLeadAsATaggedLineWithTheSenderAndThePlanAsQuotedData() {
        InboxRow row = new InboxRow("m1", "bob", "plan_approval_request", "1. <write> schema.sql",
                Map.of("requestId", "r-42"));
        assertThat(InboxFormatter.format(row)).isEqualTo("[plan_approval_request req:r-42] from bob\n"
                + "<message from=\"bob\" type=\"plan_approval_request\" id=\"m1\">\n1. &lt;write&gt; schema.sql\n</message>");
        InboxRow answer = new InboxRow("m2", "alice", "shutdown_response", "Shutting down.",
                Map.of("requestId", "r-7", "approve", true));
        assertThat(InboxFormatter.format(answer)).startsWith("[shutdown_response req:r-7] from alice approve=true\n<message");
        InboxRow plain = new InboxRow("m3", "alice", "message", "hi", Map.of());
        assertThat(InboxFormatter.format(plain)).startsWith("<message");
    }
}
