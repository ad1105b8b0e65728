package dev.cohort.lead.tasks;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import dev.cohort.lead.teams.TeamRepository;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.ValidatableResponse;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The board over HTTP: the seed's task-board scenario through the internal API, the public read API, idempotency, release, heartbeat. */
@QuarkusTest
class TaskBoardApiTest {

    @Inject
    TeamRepository teams;

    @Inject
    AgroalDataSource ds;

    String team;

    @BeforeEach
    void setUp() {
        team = Boards.newTeam(teams, "api");
    }

    /** A request to the internal API, with the test's {@code cohort.internal.token}. */
    static RequestSpecification internalCall() {
        return given().header("Authorization", "Bearer " + ConfigProvider.getConfig()
                .getValue("cohort.internal.token", String.class));
    }

    private String internal(String path) {
        return "/internal/v1/teams/" + team + "/tasks" + path;
    }

    private ValidatableResponse post(String path, String body) {
        return internalCall().contentType("application/json").body(body).post(internal(path)).then();
    }

    private String create(String subject, String... deps) {
        String blocked = deps.length == 0 ? "" : ",\"blockedBy\":[\"" + String.join("\",\"", deps) + "\"]";
        return post("", "{\"agent\":\"lead\",\"subject\":\"" + subject + "\"" + blocked + "}")
                .statusCode(201).body("status", equalTo("pending")).extract().path("id");
    }

    @Test
    void theTryThesePromptsScenarioRunsOverHttp() {
        String schema = create("setup database schema");
        String endpoints = create("create API endpoints", schema);
        String tests = create("write tests", endpoints);
        String docs = create("write docs", schema);

        JsonPath board = given().get("/api/v1/teams/" + team + "/tasks").then().statusCode(200).extract().jsonPath();
        assertThat(board.getList("id")).containsExactly(schema, endpoints, tests, docs);
        assertThat(board.getList("status")).containsOnly("pending");
        assertThat(board.getList("claimable")).containsExactly(true, false, false, false);
        assertThat(board.getList("blockedBy")).containsExactly(List.of(), List.of(schema), List.of(endpoints), List.of(schema));

        // a blocked claim is refused with its blockers named, in the detail and as data
        JsonPath refused = post("/" + tests + "/claim", "{\"agent\":\"alice\",\"leaseToken\":\"a-1\"}")
                .statusCode(409).contentType("application/problem+json").extract().jsonPath();
        assertThat(refused.getString("code")).isEqualTo("blocked");
        assertThat(refused.getString("detail")).isEqualTo(tests + " (write tests) is blocked by " + endpoints
                + " (create API endpoints) [pending]; complete those first");
        assertThat(refused.getList("blockers")).containsExactly(Map.of("id", endpoints, "subject", "create API endpoints",
                "status", "pending"));

        JsonPath claim = post("/" + schema + "/claim", "{\"agent\":\"alice\",\"leaseToken\":\"a-1\"}")
                .statusCode(200).extract().jsonPath();
        assertThat(claim.getString("leaseToken")).isEqualTo("a-1");
        assertThat(claim.getBoolean("fresh")).isTrue();
        assertThat(claim.getString("task.owner")).isEqualTo("alice");
        assertThat(claim.getString("task.status")).isEqualTo("in_progress");
        assertThat(Instant.parse(claim.getString("leaseUntil"))).isAfter(Instant.now().plusSeconds(200));

        JsonPath done = post("/" + schema + "/complete", "{\"agent\":\"alice\",\"leaseToken\":\"a-1\",\"result\":\"schema.sql\"}")
                .statusCode(200).extract().jsonPath();
        assertThat(done.getList("unblocked.id")).containsExactly(endpoints, docs);
        assertThat(done.getString("task.status")).isEqualTo("completed");
        assertThat(done.getString("task.result")).isEqualTo("schema.sql");
        assertThat(done.getBoolean("repeated")).isFalse();

        JsonPath after = given().get("/api/v1/teams/" + team + "/tasks").then().statusCode(200).extract().jsonPath();
        assertThat(after.getList("status")).containsExactly("completed", "pending", "pending", "pending");
        assertThat(after.getList("owner")).containsExactly("alice", null, null, null);
        assertThat(after.getList("claimable")).containsExactly(false, true, false, true);
        assertThat(after.getList("blockers")).containsExactly(List.of(), List.of(), List.of(endpoints), List.of());
        assertThat(given().get("/api/v1/teams/" + team + "/tasks?status=pending").then().statusCode(200)
                .extract().jsonPath().getList("id")).containsExactly(endpoints, tests, docs);

        assertThat(Boards.taskEvents(ds, team).stream().map(e -> e.type() + "/" + e.agent()).toList()).containsExactly(
                "task_created/lead", "task_created/lead", "task_created/lead", "task_created/lead",
                "task_claimed/alice", "task_completed/alice");
    }

    @Test
    void unknownTeamsAndTasksAre404ProblemsAndMalformedIdsAre400() {
        given().get("/api/v1/teams/no-such-team/tasks").then().statusCode(404).contentType("application/problem+json")
                .body("detail", equalTo("unknown team \"no-such-team\""));
        given().get("/api/v1/teams/" + team + "/tasks/task_999999999").then().statusCode(404)
                .contentType("application/problem+json").body("status", equalTo(404)).body("code", equalTo("not-found"));
        given().get("/api/v1/teams/" + team + "/tasks/abc").then().statusCode(400).contentType("application/problem+json")
                .body("code", equalTo("invalid"));
        given().get("/api/v1/teams/" + team + "/tasks?status=done").then().statusCode(400);
        post("/task_999999999/claim", "{\"agent\":\"alice\"}").statusCode(404);
        post("/claim-next", "{\"agent\":\"Not A Name\"}").statusCode(400).body("code", equalTo("invalid"));
        post("/claim-next", "{\"agent\":\"alice\",\"leaseSeconds\":0.1}").statusCode(400)
                .body("detail", equalTo("leaseSeconds must be between 1s and 3600s, got 0.1"));
        post("", "{\"agent\":\"lead\",\"subject\":\"\"}").statusCode(400).body("detail", equalTo("subject is required (a one-line title)"));
        internalCall().contentType("application/json").post(internal("/claim-next")).then().statusCode(400);
    }

    @Test
    void claimsAreIdempotentPerLeaseTokenAndGuardedAgainstEveryoneElse() {
        String t = create("contended");
        post("/" + t + "/claim", "{\"agent\":\"alice\",\"leaseToken\":\"a-1\"}").statusCode(200).body("fresh", equalTo(true));
        post("/" + t + "/claim", "{\"agent\":\"alice\",\"leaseToken\":\"a-1\"}").statusCode(200)
                .body("fresh", equalTo(false)).body("leaseToken", equalTo("a-1")).body("task.claims", equalTo(1));
        post("/" + t + "/claim", "{\"agent\":\"alice\",\"leaseToken\":\"a-2\"}").statusCode(409)
                .body("code", equalTo("lease-mismatch"));
        post("/" + t + "/claim", "{\"agent\":\"bob\",\"leaseToken\":\"b-1\"}").statusCode(409)
                .body("code", equalTo("owned")).body("owner", equalTo("alice"))
                .body("detail", equalTo(t + " (contended) is already claimed by alice; pick another task"));
        post("/" + t + "/complete", "{\"agent\":\"bob\",\"leaseToken\":\"b-1\"}").statusCode(409)
                .body("code", equalTo("not-owner")).body("owner", equalTo("alice"));
        post("/" + t + "/complete", "{\"agent\":\"alice\",\"leaseToken\":\"stale\"}").statusCode(409)
                .body("code", equalTo("lease-mismatch"));
        post("/" + t + "/heartbeat", "{\"agent\":\"bob\",\"leaseToken\":\"b-1\"}").statusCode(409).body("code", equalTo("not-owner"));

        Instant before = Instant.parse(given().get("/api/v1/teams/" + team + "/tasks/" + t).then().extract().path("leaseUntil"));
        Instant renewed = Instant.parse(post("/" + t + "/heartbeat", "{\"agent\":\"alice\",\"leaseToken\":\"a-1\",\"leaseSeconds\":3000}")
                .statusCode(200).extract().path("leaseUntil"));
        assertThat(renewed).isAfter(before.plusSeconds(2000));

        post("/" + t + "/complete", "{\"agent\":\"alice\",\"leaseToken\":\"a-1\"}").statusCode(200).body("repeated", equalTo(false));
        post("/" + t + "/complete", "{\"agent\":\"alice\",\"leaseToken\":\"a-1\"}").statusCode(200)
                .body("repeated", equalTo(true)).body("unblocked", equalTo(List.of()));
        post("/" + t + "/claim", "{\"agent\":\"bob\"}").statusCode(409).body("code", equalTo("status"));
        assertThat(Boards.taskEvents(ds, team).stream().map(Boards.StoredEvent::type).toList())
                .containsExactly("task_created", "task_claimed", "task_completed");
    }

    @Test
    void aReleasedTaskIsPendingAgainAndTheNextClaimNextTakesTheOldestFreeTask() {
        String first = create("first");
        String second = create("second");
        String blocked = create("blocked", first);
        post("/claim-next", "{\"agent\":\"alice\",\"leaseToken\":\"a-1\"}").statusCode(200).body("task.id", equalTo(first));
        post("/claim-next", "{\"agent\":\"alice\",\"leaseToken\":\"a-1\"}").statusCode(200)
                .body("task.id", equalTo(first)).body("fresh", equalTo(false));
        post("/claim-next", "{\"agent\":\"bob\",\"leaseToken\":\"b-1\"}").statusCode(200).body("task.id", equalTo(second));
        post("/claim-next", "{\"agent\":\"carol\",\"leaseToken\":\"c-1\"}").statusCode(204);

        post("/" + first + "/release", "{\"agent\":\"bob\",\"leaseToken\":\"b-1\"}").statusCode(409).body("code", equalTo("not-owner"));
        post("/" + first + "/release", "{\"agent\":\"alice\",\"leaseToken\":\"a-1\"}").statusCode(200)
                .body("status", equalTo("pending")).body("owner", equalTo(null));
        post("/" + first + "/release", "{\"agent\":\"alice\",\"leaseToken\":\"a-1\"}").statusCode(200).body("status", equalTo("pending"));
        post("/" + first + "/heartbeat", "{\"agent\":\"alice\",\"leaseToken\":\"a-1\"}").statusCode(409)
                .body("code", equalTo("lease-expired"));
        post("/claim-next", "{\"agent\":\"carol\",\"leaseToken\":\"c-1\"}").statusCode(200).body("task.id", equalTo(first))
                .body("task.claims", equalTo(2));
        post("/" + first + "/complete", "{\"agent\":\"carol\",\"leaseToken\":\"c-1\"}").statusCode(200)
                .body("unblocked.id", equalTo(List.of(blocked)));
        post("/claim-next", "{\"agent\":\"alice\",\"leaseToken\":\"a-2\"}").statusCode(200).body("task.id", equalTo(blocked));
    }
}
