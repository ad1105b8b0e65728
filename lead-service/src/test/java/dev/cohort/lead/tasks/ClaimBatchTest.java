package dev.cohort.lead.tasks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.lead.teams.TeamRepository;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.ValidatableResponse;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /internal/v1/teams/{team}/tasks/claim-batch} — one request claims for the idle
 * teammates of one replica: never a task for two claimers, never a task before its blockers, role / assignee respected,
 * a retried batch gets the same tasks, one {@code task_claimed} per fresh claim.
 */
@QuarkusTest
class ClaimBatchTest {

    @Inject
    TeamRepository teams;

    @Inject
    AgroalDataSource ds;

    String team;

    @BeforeEach
    void setUp() {
        team = Boards.newTeam(teams, "batch");
    }

    private ValidatableResponse post(String path, String body) {
        return TaskBoardApiTest.internalCall().contentType("application/json").body(body)
                .post("/internal/v1/teams/" + team + "/tasks" + path).then();
    }

    private String create(String subject, String extra) {
        return post("", "{\"agent\":\"lead\",\"subject\":\"" + subject + "\"" + extra + "}").statusCode(201)
                .extract().path("id");
    }

    /** claimer = {agent, role (or null)}; tokens are agent + suffix. Returns agent → task id. */
    private Map<String, String> batch(String suffix, String... agentRole) {
        List<String> cs = new ArrayList<>();
        for (int i = 0; i < agentRole.length; i += 2) {
            cs.add("{\"agent\":\"" + agentRole[i] + "\",\"leaseToken\":\"" + agentRole[i] + suffix + "\""
                    + (agentRole[i + 1] == null ? "" : ",\"role\":\"" + agentRole[i + 1] + "\"") + "}");
        }
        JsonPath r = post("/claim-batch", "{\"leaseSeconds\":60,\"claimers\":[" + String.join(",", cs) + "]}")
                .statusCode(200).extract().jsonPath();
        Map<String, String> out = new HashMap<>();
        List<Map<String, Object>> claims = r.getList("claims");
        for (Map<String, Object> c : claims) {
            @SuppressWarnings("unchecked")
            Map<String, Object> task = (Map<String, Object>) c.get("task");
            assertThat(task.get("owner")).isEqualTo(c.get("agent"));
            assertThat(c.get("leaseToken")).isEqualTo(c.get("agent") + suffix);
            out.put((String) c.get("agent"), (String) task.get("id"));
        }
        return out;
    }

    @Test
    void moreTeammatesThanTasksEachTaskGoesToOneOfThemAndTheOthersGetNothing() {
        String a = create("a", "");
        String b = create("b", "");
        Map<String, String> got = batch("-1", "w1", null, "w2", null, "w3", null, "w4", null);
        assertThat(got).hasSize(2);
        assertThat(new HashSet<>(got.values())).containsExactlyInAnyOrder(a, b);
        // the oldest tasks go to the first claimers
        assertThat(got).containsEntry("w1", a).containsEntry("w2", b);
        // one task_claimed each, via claim-next, by its owner
        List<Boards.StoredEvent> claimed = Boards.taskEvents(ds, team).stream().filter(e -> e.type().equals("task_claimed")).toList();
        assertThat(claimed).extracting(e -> e.data().path("id").asText()).containsExactly(a, b);
        assertThat(claimed).allSatisfy(e -> {
            assertThat(e.agent()).isEqualTo(e.data().path("owner").asText());
            assertThat(e.data().path("via").asText()).isEqualTo("claim-next");
        });
        // nothing left: an empty answer, not an error
        assertThat(batch("-2", "w3", null, "w4", null)).isEmpty();
    }

    @Test
    void mixedRolesAndAnAssigneeEachTeammateTakesOnlyWhatItMay() {
        String generic = create("generic", "");
        String tests = create("tests", ",\"role\":\"tester\"");
        String forBob = create("bob's", ",\"assignee\":\"bob\"");
        String docs = create("docs", ",\"role\":\"writer\"");
        Map<String, String> got = batch("-1", "tina", "tester", "dave", "developer", "alice", "developer");
        // tina could take the generic task too, but then the tester task would stay: dave takes the generic one
        assertThat(got).containsOnly(Map.entry("tina", tests), Map.entry("dave", generic));
        assertThat(batch("-1", "bob", "developer", "wendy", "writer"))
                .containsOnly(Map.entry("bob", forBob), Map.entry("wendy", docs));
    }

    @Test
    void aBlockedTaskIsNotClaimedUntilItsBlockerIsCompleted() {
        String first = create("first", "");
        String second = create("second", ",\"blockedBy\":[\"" + first + "\"]");
        assertThat(batch("-1", "x", null, "y", null)).containsOnly(Map.entry("x", first));
        post("/" + first + "/complete", "{\"agent\":\"x\",\"leaseToken\":\"x-1\"}").statusCode(200);
        assertThat(batch("-2", "x", null, "y", null)).containsOnly(Map.entry("x", second));
    }

    @Test
    void aRetriedBatchGetsTheSameTasksBackAndRecordsNoSecondClaim() {
        create("a", "");
        create("b", "");
        Map<String, String> first = batch("-1", "p", null, "q", null);
        Map<String, String> again = batch("-1", "p", null, "q", null);
        assertThat(again).isEqualTo(first);
        JsonPath r = post("/claim-batch", "{\"claimers\":[{\"agent\":\"p\",\"leaseToken\":\"p-1\"}]}").statusCode(200)
                .extract().jsonPath();
        assertThat(r.getBoolean("claims[0].fresh")).isFalse();
        assertThat(Boards.taskEvents(ds, team).stream().filter(e -> e.type().equals("task_claimed"))).hasSize(2);
    }

    @Test
    void twoReplicasRacingWithTheirBatchesNeverClaimATaskTwice() throws Exception {
        int tasks = 120;
        for (int i = 0; i < tasks; i++) {
            create("job " + i, "");
        }
        Map<String, String> owner = new ConcurrentHashMap<>();
        List<String> dups = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(2);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> fs = new ArrayList<>();
        for (String replica : List.of("r1", "r2")) {
            fs.add(pool.submit(() -> {
                go.await();
                for (int round = 0; ; round++) {
                    String[] claimers = IntStream.range(0, 10).boxed()
                            .flatMap(i -> Stream.of(replica + "w" + i, (String) null)).toArray(String[]::new);
                    Map<String, String> got = batch("-" + round, claimers);
                    if (got.isEmpty()) {
                        return null;
                    }
                    got.forEach((agent, id) -> {
                        if (owner.putIfAbsent(id, agent) != null) {
                            dups.add(id);
                        }
                    });
                }
            }));
        }
        go.countDown();
        for (Future<?> f : fs) {
            f.get();
        }
        pool.shutdown();
        assertThat(dups).isEmpty();
        assertThat(owner).hasSize(tasks);
        // from the board: every task claimed exactly once, by the owner the client was told
        JsonPath board = TaskBoardApiTest.internalCall().get("/internal/v1/teams/" + team + "/tasks").then().extract().jsonPath();
        List<Map<String, Object>> rows = board.getList("");
        assertThat(rows).hasSize(tasks).allSatisfy(t -> {
            assertThat(t.get("claims")).isEqualTo(1);
            assertThat(t.get("owner")).isEqualTo(owner.get((String) t.get("id")));
        });
        Set<String> replicas = owner.values().stream().map(a -> a.substring(0, 2)).collect(Collectors.toSet());
        assertThat(replicas).isNotEmpty();
        assertThat(Boards.taskEvents(ds, team).stream().filter(e -> e.type().equals("task_claimed"))).hasSize(tasks);
    }

    @Test
    void aBatchShowsEachClaimOnItsClaimersRosterRowAndNumbersItsEventsTogether() throws Exception {
        String a = create("a", "");
        String b = create("b", "");
        String c = create("c", "");
        try (Connection conn = ds.getConnection(); PreparedStatement ps = conn.prepareStatement(
                "INSERT INTO lead.roster (team, name, phase) VALUES (?, ?, 'idle')")) {
            for (String name : List.of("r1", "r2", "r3")) {
                ps.setString(1, team);
                ps.setString(2, name);
                ps.executeUpdate();
            }
        }

        Map<String, String> got = batch("-1", "r1", null, "r2", null, "r3", null);

        assertThat(got).containsOnly(Map.entry("r1", a), Map.entry("r2", b), Map.entry("r3", c));
        Map<String, String> current = new HashMap<>();
        List<Long> seqs = new ArrayList<>();
        try (Connection conn = ds.getConnection()) {
            try (PreparedStatement ps = conn.prepareStatement(
                    "SELECT name, current_task FROM lead.roster WHERE team = ?")) {
                ps.setString(1, team);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        current.put(rs.getString(1), rs.getString(2));
                    }
                }
            }
            try (PreparedStatement ps = conn.prepareStatement(
                    "SELECT seq FROM lead.events WHERE team = ? AND type = 'task_claimed' ORDER BY seq")) {
                ps.setString(1, team);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        seqs.add(rs.getLong(1));
                    }
                }
            }
        }
        assertThat(current).isEqualTo(got);
        // the three task_claimed events are numbered together (one counter bump, in the claims' transaction)
        assertThat(seqs).hasSize(3);
        assertThat(seqs).containsExactly(seqs.getFirst(), seqs.getFirst() + 1, seqs.getFirst() + 2);
    }

    @Test
    void aBadBatchIsRefusedWithAClearError() {
        assertThat(post("/claim-batch", "{\"claimers\":[]}").statusCode(400).extract().jsonPath().getString("detail"))
                .isEqualTo("claimers must list 1..200 {agent, leaseToken, role?}");
        assertThat(post("/claim-batch", "{\"claimers\":[{\"agent\":\"a\"}]}").statusCode(400).extract().jsonPath()
                .getString("detail")).startsWith("leaseToken must be 1..");
        assertThat(post("/claim-batch", "{\"claimers\":[{\"agent\":\"a\",\"leaseToken\":\"1\"},{\"agent\":\"a\","
                + "\"leaseToken\":\"2\"}]}").statusCode(400).extract().jsonPath().getString("detail"))
                .isEqualTo("agent a is named twice; a batch claims one task per agent");
    }

    @Test
    void aBatchForAnUnknownTeamIsNotFoundAndAnEmptyBoardAnswersNoClaims() {
        // the team is checked inside the claim (only when nothing was claimed), not in a round trip before it
        assertThat(TaskBoardApiTest.internalCall().contentType("application/json")
                .body("{\"claimers\":[{\"agent\":\"a\",\"leaseToken\":\"t1\"}]}")
                .post("/internal/v1/teams/no-such-team/tasks/claim-batch").then().statusCode(404).extract().jsonPath()
                .getString("detail")).isEqualTo("unknown team \"no-such-team\"");
        assertThat(batch("-empty", "a", null)).isEmpty();
    }
}
