package dev.cohort.lead.tasks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.Topics;
import dev.cohort.lead.teams.TeamRepository;
import dev.cohort.lead.TestKafka;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.ValidatableResponse;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Roles and claiming on the lead's board: tasks naming a role or an assignee go only to a matching teammate (claim and
 * claim-next), the batched heartbeat of a teammate replica, {@code task_available} to the idle teammates of the
 * roster, and the roster's {@code current_task}.
 */
@QuarkusTest
class TaskRolesTest {

    @Inject
    TeamRepository teams;

    @Inject
    AgroalDataSource ds;

    String team;

    @BeforeEach
    void setUp() {
        team = Boards.newTeam(teams, "roles");
    }

    private ValidatableResponse post(String path, String body) {
        return TaskBoardApiTest.internalCall().contentType("application/json").body(body)
                .post("/internal/v1/teams/" + team + "/tasks" + path).then();
    }

    private String create(String subject, String extra) {
        return post("", "{\"agent\":\"lead\",\"subject\":\"" + subject + "\"" + extra + "}").statusCode(201)
                .extract().path("id");
    }

    private String claimNext(String agent, String role) {
        var r = post("/claim-next", "{\"agent\":\"" + agent + "\",\"leaseToken\":\"" + agent + "-tok\""
                + (role == null ? "" : ",\"role\":\"" + role + "\"") + "}").extract();
        return r.statusCode() == 204 ? null : r.jsonPath().getString("task.id");
    }

    @Test
    void aTaskNamingAnAssigneeOrARoleIsTakenOnlyByAMatchingTeammate() {
        String forBob = create("review bob's patch", ",\"assignee\":\"bob\"");
        String forTesters = create("write the tests", ",\"role\":\"tester\"");
        String anyone = create("update the docs", "");

        JsonPath shown = TaskBoardApiTest.internalCall().get("/internal/v1/teams/" + team + "/tasks/" + forBob).then()
                .statusCode(200).extract().jsonPath();
        assertThat(shown.getString("assignee")).isEqualTo("bob");

        // alice (a developer) skips the tasks that are not hers and takes the free one; then there is nothing for her
        assertThat(claimNext("alice", "developer")).isEqualTo(anyone);
        assertThat(post("/claim-next", "{\"agent\":\"alice\",\"leaseToken\":\"alice-2\",\"role\":\"developer\"}")
                .extract().statusCode()).isEqualTo(204);
        // an explicit claim of another's task is refused, naming why
        JsonPath refused = post("/" + forBob + "/claim", "{\"agent\":\"alice\",\"leaseToken\":\"a-x\",\"role\":\"developer\"}")
                .statusCode(409).extract().jsonPath();
        assertThat(refused.getString("code")).isEqualTo("not-eligible");
        assertThat(refused.getString("detail")).isEqualTo(forBob + " (review bob's patch) is assigned to bob; only bob takes it");
        JsonPath wrongRole = post("/" + forTesters + "/claim", "{\"agent\":\"alice\",\"leaseToken\":\"a-y\",\"role\":\"developer\"}")
                .statusCode(409).extract().jsonPath();
        assertThat(wrongRole.getString("detail")).isEqualTo(forTesters
                + " (write the tests) is for role 'tester', not 'developer'; only a teammate of that role takes it");

        // carol the tester takes the testers' task (bob's is not hers), bob his own
        assertThat(claimNext("carol", "tester")).isEqualTo(forTesters);
        assertThat(claimNext("bob", "reviewer")).isEqualTo(forBob);
    }

    @Test
    void aBadRoleOrAssigneeIsRefusedWithAClearError() {
        JsonPath bad = post("", "{\"agent\":\"lead\",\"subject\":\"x\",\"assignee\":\"Not A Name\",\"role\":\"a\\nb\"}")
                .statusCode(400).extract().jsonPath();
        assertThat(bad.getString("detail")).contains("role must be one line of at most 64 characters")
                .contains("assignee \"Not A Name\" is not an agent name");
    }

    @Test
    void theBatchedHeartbeatRenewsLiveLeasesAndReportsTheLostOnes() {
        String a = create("a", "");
        String b = create("b", "");
        post("/" + a + "/claim", "{\"agent\":\"alice\",\"leaseToken\":\"tok-a\",\"leaseSeconds\":30}").statusCode(200);
        post("/" + b + "/claim", "{\"agent\":\"bob\",\"leaseToken\":\"tok-b\",\"leaseSeconds\":30}").statusCode(200);

        JsonPath r = post("/heartbeats", "{\"leaseSeconds\":120,\"leases\":[{\"id\":\"" + a
                + "\",\"agent\":\"alice\",\"leaseToken\":\"tok-a\"},{\"id\":\"" + b
                + "\",\"agent\":\"bob\",\"leaseToken\":\"stale\"}]}").statusCode(200).extract().jsonPath();
        assertThat(r.getList("renewed")).containsExactly(a);
        assertThat(r.getList("lost")).containsExactly(b);
        // the renewed lease now ends about two minutes out, the other is unchanged (30 s)
        JsonPath board = TaskBoardApiTest.internalCall().get("/internal/v1/teams/" + team + "/tasks").then().extract().jsonPath();
        Instant ua = Instant.parse(board.getString("find { it.id == '" + a + "' }.leaseUntil"));
        Instant ub = Instant.parse(board.getString("find { it.id == '" + b + "' }.leaseUntil"));
        assertThat(Duration.between(ub, ua)).isGreaterThan(Duration.ofSeconds(60));

        assertThat(post("/heartbeats", "{\"leases\":[{\"id\":\"" + a + "\",\"agent\":\"alice\"}]}").statusCode(400)
                .extract().jsonPath().getString("detail")).isEqualTo("every lease needs id, agent and leaseToken");
    }

    @Test
    void aNewTaskIsAnnouncedToTheIdleTeammatesThatMayTakeItAndTheRosterShowsWhoWorksOnWhat() throws Exception {
        roster("idler", "tester", "idle");
        roster("worker", "tester", "working");
        roster("dev", "developer", "idle");
        String t = create("write the tests", ",\"role\":\"tester\"");

        List<ConsumerRecord<String, String>> seen = TestKafka.readUntil(Topics.TEAMMATE_INBOX,
                r -> (team + "/idler").equals(r.key()), Duration.ofSeconds(60));
        AgentMessage m = seen.stream().filter(r -> (team + "/idler").equals(r.key())).map(r -> AgentMessage.parse(r.value()))
                .findFirst().orElseThrow();
        assertThat(m.type()).isEqualTo(MessageType.TASK_AVAILABLE);
        assertThat(m.from()).isEqualTo("lead");
        assertThat(m.metadata()).containsEntry("taskId", t);
        // neither the working teammate nor the one of another role was told: the announcement has one recipient
        String marker = create("marker for everyone", "");
        // read until both idle teammates got the later announcement (their partitions may be read in any order)
        Set<String> markerSeen = new HashSet<>();
        List<ConsumerRecord<String, String>> all = TestKafka.readUntil(Topics.TEAMMATE_INBOX, r -> {
            if (r.key().startsWith(team + "/") && r.value().contains("\"" + marker + "\"")) {
                markerSeen.add(r.key());
            }
            return markerSeen.size() == 2;
        }, Duration.ofSeconds(60));
        assertThat(markerSeen).containsExactlyInAnyOrder(team + "/dev", team + "/idler");
        assertThat(all.stream().filter(r -> r.key().startsWith(team + "/") && r.value().contains("\"" + t + "\""))
                .map(ConsumerRecord::key)).containsExactly(team + "/idler");

        post("/" + t + "/claim", "{\"agent\":\"idler\",\"leaseToken\":\"tok\",\"role\":\"tester\"}").statusCode(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> t.equals(currentTask("idler")));
        post("/" + t + "/complete", "{\"agent\":\"idler\",\"leaseToken\":\"tok\"}").statusCode(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> currentTask("idler") == null);
    }

    private void roster(String name, String role, String phase) throws Exception {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO lead.roster (team, name, role, phase) VALUES (?, ?, ?, ?)")) {
            ps.setString(1, team);
            ps.setString(2, name);
            ps.setString(3, role);
            ps.setString(4, phase);
            ps.executeUpdate();
        }
    }

    private String currentTask(String name) throws Exception {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT current_task FROM lead.roster WHERE team = ? AND name = ?")) {
            ps.setString(1, team);
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }
}
