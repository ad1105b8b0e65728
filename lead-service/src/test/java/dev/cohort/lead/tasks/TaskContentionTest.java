package dev.cohort.lead.tasks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cohort.core.protocol.Json;
import dev.cohort.lead.teams.TeamRepository;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/** The board under concurrency on the real PostgreSQL: claim-next races, lease expiry, racing completions. */
@QuarkusTest
class TaskContentionTest {

    @TestHTTPResource("/")
    URL base;

    @Inject
    TeamRepository teams;

    @Inject
    TaskRepository repo;

    @Inject
    TaskService service;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Inject
    AgroalDataSource ds;

    /** Time travel for one claim: its lease ended a second ago (by the database clock, which decides expiry). */
    private void expireLease(String team, long id) throws Exception {
        try (var c = ds.getConnection(); var ps = c.prepareStatement(
                "UPDATE lead.tasks SET lease_until = now() - interval '1 second' WHERE team = ? AND id = ? AND status = 'in_progress'")) {
            ps.setString(1, team);
            ps.setLong(2, id);
            assertThat(ps.executeUpdate()).as("claimed row of " + id).isEqualTo(1);
        }
    }

    /** POSTs JSON to the internal API; returns status and body. */
    private HttpResponse<String> post(String team, String path, String body) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create(base.toString().replaceAll("/$", "") + "/internal/v1/teams/"
                        + team + "/tasks" + path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + ConfigProvider.getConfig()
                        .getValue("cohort.internal.token", String.class))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return http.send(req, HttpResponse.BodyHandlers.ofString());
    }

    private static String claimedId(HttpResponse<String> r) throws Exception {
        return Json.MAPPER.readTree(r.body()).path("task").path("id").asText();
    }

    @Test
    void claimsEachTaskExactlyOnceUnderContention() throws Exception {
        String team = Boards.newTeam(teams, "race");
        Set<String> created = new HashSet<>();
        for (int i = 0; i < 500; i++) {
            created.add(TaskIds.format(repo.insert(team, "task " + i, "", "lead", new long[0], 10_000).task().id()));
        }
        int threads = 8;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<List<String>>> results = new ArrayList<>();
            for (int w = 0; w < threads; w++) {
                String agent = "worker" + w;
                results.add(pool.submit((Callable<List<String>>) () -> {
                    List<String> mine = new ArrayList<>();
                    start.await();
                    for (int n = 0; ; n++) {
                        HttpResponse<String> r = post(team, "/claim-next",
                                "{\"agent\":\"" + agent + "\",\"leaseToken\":\"" + agent + "-" + n + "\"}");
                        if (r.statusCode() == 204) {
                            return mine;
                        }
                        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                        mine.add(claimedId(r));
                    }
                }));
            }
            List<String> all = new ArrayList<>();
            List<Integer> perWorker = new ArrayList<>();
            for (Future<List<String>> f : results) {
                List<String> mine = f.get(120, TimeUnit.SECONDS);
                perWorker.add(mine.size());
                all.addAll(mine);
            }
            assertThat(all).hasSize(500).doesNotHaveDuplicates();
            assertThat(new HashSet<>(all)).isEqualTo(created);
            assertThat(perWorker).as("SKIP LOCKED lets every worker make progress").allSatisfy(n -> assertThat(n).isPositive());
        } finally {
            pool.shutdownNow();
        }
        List<TaskRow> board = repo.list(team);
        assertThat(board).hasSize(500).allSatisfy(t -> {
            assertThat(t.status()).isEqualTo("in_progress");
            assertThat(t.claims()).isEqualTo(1);
        });
    }

    @Test
    void anExpiredLeaseMakesTheTaskClaimableAgainAndTheOldHolderCannotFinishIt() throws Exception {
        String team = Boards.newTeam(teams, "lease");
        String t = TaskIds.format(repo.insert(team, "short lease", "", "lead", new long[0], 10).task().id());
        // the default lease (minutes): live however slow the machine is, until the test moves its end into the past
        HttpResponse<String> first = post(team, "/" + t + "/claim", "{\"agent\":\"alice\",\"leaseToken\":\"a-1\"}");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(post(team, "/claim-next", "{\"agent\":\"bob\",\"leaseToken\":\"b-1\"}").statusCode())
                .as("a live lease is not claimable").isEqualTo(204);
        expireLease(team, TaskIds.parse(t).getAsLong());

        HttpResponse<String> taken = post(team, "/claim-next", "{\"agent\":\"bob\",\"leaseToken\":\"b-1\"}");
        assertThat(taken.statusCode()).as(taken.body()).isEqualTo(200);
        assertThat(claimedId(taken)).isEqualTo(t);
        assertThat(Json.MAPPER.readTree(taken.body()).path("task").path("claims").asInt()).isEqualTo(2);

        HttpResponse<String> late = post(team, "/" + t + "/complete", "{\"agent\":\"alice\",\"leaseToken\":\"a-1\"}");
        assertThat(late.statusCode()).isEqualTo(409);
        assertThat(Json.MAPPER.readTree(late.body()).path("owner").asText()).isEqualTo("bob");
        assertThat(post(team, "/" + t + "/heartbeat", "{\"agent\":\"alice\",\"leaseToken\":\"a-1\"}").statusCode()).isEqualTo(409);
        assertThat(post(team, "/" + t + "/complete", "{\"agent\":\"bob\",\"leaseToken\":\"b-1\"}").statusCode()).isEqualTo(200);
    }

    @Test
    void anExpiredLeaseReadsAsPendingAndItsHolderIsToldTheLeaseExpired() throws Exception {
        String team = Boards.newTeam(teams, "expiry");
        String t = TaskIds.format(repo.insert(team, "abandoned", "", "lead", new long[0], 10).task().id());
        assertThat(post(team, "/" + t + "/claim", "{\"agent\":\"alice\",\"leaseToken\":\"a-1\",\"leaseSeconds\":1}").statusCode())
                .isEqualTo(200);
        long id = TaskIds.parse(t).getAsLong();
        // watch the row without touching it (no heartbeat, no board read) until the database clock passes the lease
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> repo.find(team, id).orElseThrow().leaseExpired());
        HttpResponse<String> late = post(team, "/" + t + "/heartbeat", "{\"agent\":\"alice\",\"leaseToken\":\"a-1\"}");
        assertThat(late.statusCode()).isEqualTo(409);
        assertThat(Json.MAPPER.readTree(late.body()).path("code").asText()).isEqualTo("lease-expired");
        assertThat(Json.MAPPER.readTree(late.body()).path("detail").asText()).startsWith("your lease on " + t + " (abandoned) expired at ");
        TaskRow row = service.get(team, t);
        assertThat(List.of(row.status(), String.valueOf(row.owner()), String.valueOf(row.leaseToken())))
                .as("reading the board returns expired claims to pending").containsExactly("pending", "null", "null");
    }

    @Test
    void twoCompletionsRacingToUnblockOneTaskReportItExactlyOnce() throws Exception {
        String team = Boards.newTeam(teams, "unblock");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 15; round++) {
                long a = repo.insert(team, "a" + round, "", "lead", new long[0], 10_000).task().id();
                long b = repo.insert(team, "b" + round, "", "lead", new long[0], 10_000).task().id();
                long c = repo.insert(team, "c" + round, "", "lead", new long[] {a, b}, 10_000).task().id();
                service.claim(team, TaskIds.format(a), Holder.withLease("alice", "a" + round), 60_000.0);
                service.claim(team, TaskIds.format(b), Holder.withLease("bob", "b" + round), 60_000.0);
                CyclicBarrier go = new CyclicBarrier(2);
                int r = round;
                Future<TaskService.Completion> fa = pool.submit(() -> {
                    go.await();
                    return service.complete(team, TaskIds.format(a), Holder.withLease("alice", "a" + r), null);
                });
                Future<TaskService.Completion> fb = pool.submit(() -> {
                    go.await();
                    return service.complete(team, TaskIds.format(b), Holder.withLease("bob", "b" + r), null);
                });
                List<Long> reported = new ArrayList<>();
                for (Future<TaskService.Completion> f : List.of(fa, fb)) {
                    f.get(30, TimeUnit.SECONDS).unblocked().forEach(u -> reported.add(u.id()));
                }
                assertThat(reported).as("round %d", round).isEqualTo(Collections.singletonList(c));
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
