package dev.cohort.teammate.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.devstack.model.Scenario;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The claim benchmarks of issue 15, item 7 — a main class, not a test (nothing runs it in {@code ./mvnw verify}).
 *
 * <ol>
 *   <li><b>claims per second</b> through the lead's internal claim-next: lead-service as a real process (with the
 *       devstack's PostgreSQL and broker), 50 teammates split over 3 replicas (three HTTP clients with their own
 *       connections, as three teammate-service replicas call the lead), each looping claim-next until the board is
 *       empty; duplicates checked from the board ({@code claims} of every task) and from what the clients got.</li>
 *   <li><b>{@code task_available} → claim latency</b>: the whole team (tool runner, lead-service, 3 teammate-service
 *       replicas, scripted model) with 50 idle teammates; tasks created one at a time; per task the board's
 *       {@code claimedAt − createdAt} (both the database's clock).</li>
 * </ol>
 * Arguments: {@code --tasks=5000 --latency=100}.
 */
public final class ClaimBenchmark {

    static final int TEAMMATES = 50;
    static final int REPLICAS = 3;

    private ClaimBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int tasks = 5000;
        int latency = 100;
        for (String a : args) {
            if (a.startsWith("--tasks=")) {
                tasks = Integer.parseInt(a.substring(8));
            } else if (a.startsWith("--latency=")) {
                latency = Integer.parseInt(a.substring(10));
            } else {
                throw new IllegalArgumentException("unknown argument " + a + " (known: --tasks=N --latency=N)");
            }
        }
        if (tasks > 0) {
            claimsPerSecond(tasks);
        }
        if (latency > 0) {
            claimLatency(latency);
        }
    }

    // ---- 1: claims per second

    static void claimsPerSecond(int tasks) throws Exception {
        try (TeamStack stack = TeamStack.start(0, Map.of())) {
            ClaimRig rig = new ClaimRig(stack);
            String team = stack.createTeam("claimbench");
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<?>> made = new ArrayList<>();
            for (int i = 0; i < tasks; i++) {
                int n = i;
                made.add(pool.submit(() -> rig.create(team, "job " + n, "", List.of())));
            }
            for (Future<?> f : made) {
                f.get();
            }
            pool.shutdown();
            List<ExecutorService> clientPools = IntStream.range(0, REPLICAS).mapToObj(i -> Executors.newFixedThreadPool(4))
                    .toList();
            List<HttpClient> replicas = clientPools.stream().map(p -> HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1).executor(p).connectTimeout(Duration.ofSeconds(5)).build()).toList();
            Map<String, String> got = new ConcurrentHashMap<>();
            AtomicInteger duplicates = new AtomicInteger();
            List<Long> micros = Collections.synchronizedList(new ArrayList<>());
            ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
            long start = System.nanoTime();
            List<Future<?>> ws = new ArrayList<>();
            for (int t = 0; t < TEAMMATES; t++) {
                String agent = "w%02d".formatted(t);
                HttpClient http = replicas.get(t % REPLICAS);
                ws.add(workers.submit(() -> {
                    while (true) {
                        long t0 = System.nanoTime();
                        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(stack.leadUrl()
                                + "/internal/v1/teams/" + team + "/tasks/claim-next")).header("Content-Type", "application/json")
                                .header("Authorization", "Bearer " + TeamStack.INTERNAL_TOKEN).timeout(Duration.ofSeconds(30))
                                .POST(HttpRequest.BodyPublishers.ofString(Json.write(Map.of("agent", agent, "leaseToken",
                                        UUID.randomUUID().toString(), "leaseSeconds", 600)))).build(),
                                HttpResponse.BodyHandlers.ofString());
                        micros.add((System.nanoTime() - t0) / 1000);
                        if (r.statusCode() == 204) {
                            return null;
                        }
                        if (r.statusCode() != 200) {
                            throw new IllegalStateException("claim-next: " + r.statusCode() + " " + r.body());
                        }
                        String id = TeamStack.json(r.body()).path("task").path("id").asText();
                        if (got.putIfAbsent(id, agent) != null) {
                            duplicates.incrementAndGet();
                        }
                    }
                }));
            }
            for (Future<?> f : ws) {
                f.get();
            }
            double secs = (System.nanoTime() - start) / 1e9;
            workers.shutdown();
            clientPools.forEach(ExecutorService::shutdown); // else their threads keep the JVM alive
            List<JsonNode> board = rig.board(team);
            long claimedOnce = board.stream().filter(t -> t.path("claims").asInt() == 1
                    && t.path("status").asText().equals("in_progress")).count();
            System.out.printf("[ClaimBenchmark] claim-next: %d tasks, %d teammates on %d replicas: %d claims in %.2f s = %.0f"
                            + " claims/s; request p50 %.1f ms p99 %.1f ms; duplicates (clients) %d; tasks claimed exactly once"
                            + " (board) %d of %d%n", tasks, TEAMMATES, REPLICAS, got.size(), secs, got.size() / secs,
                    pct(micros, 50) / 1000.0, pct(micros, 99) / 1000.0, duplicates.get(), claimedOnce, board.size());
        }
    }

    // ---- 2: task_available → claim latency

    static void claimLatency(int count) throws Exception {
        try (TeamStack stack = TeamStack.start(REPLICAS, Map.of("COHORT_TEAMMATE_MAX_PER_TEAM", "60",
                "COHORT_TEAMMATE_MAX_LIVE_PER_TEAM", "60"))) {
            ClaimRig rig = new ClaimRig(stack);
            String team = stack.createTeam("latbench");
            String spawns = IntStream.rangeClosed(1, TEAMMATES).mapToObj(i -> "{\"name\":\"spawn_teammate\",\"arguments\":"
                    + "{\"name\":\"" + "w%02d".formatted(i) + "\",\"role\":\"worker\",\"prompt\":\"wait for tasks\"}}")
                    .collect(Collectors.joining(","));
            stack.model().load(Scenario.parse("""
                    {"rules":[
                    {"name":"memory-housekeeping","match":{"system":"^You (extract|select|consolidate) memor"},"reply":{"text":"[]"}},
                    {"name":"lat-lead-spawn","match":{"agent":"latbench/lead","lastRole":"user","lastMessage":"spawn"},"reply":{"toolCalls":[%s]}},
                    {"name":"lat-lead-other","match":{"agent":"latbench/lead"},"reply":{"text":"noted"}},
                    {"name":"lat-work","match":{"agentRegex":"^latbench/w\\\\d+$","lastRole":"user","lastMessage":"^<auto-claimed>"},
                     "reply":{"toolCalls":[{"name":"complete_task","arguments":{}}]}},
                    {"name":"lat-done","match":{"agentRegex":"^latbench/w\\\\d+$","lastRole":"tool"},"reply":{"text":"done"}},
                    {"name":"lat-wait","match":{"agentRegex":"^latbench/w\\\\d+$","lastRole":"user"},"reply":{"text":"waiting"}}
                    ]}""".formatted(spawns)));
            stack.prompt(team, "spawn");
            waitFor(Duration.ofMinutes(5), () -> {
                Map<String, JsonNode> r = rig.roster(team);
                return r.size() == TEAMMATES && r.values().stream().allMatch(a -> a.path("status").asText().equals("idle"));
            });
            List<Long> ms = new ArrayList<>();
            Set<String> owners = new java.util.HashSet<>();
            for (int i = 0; i < count; i++) {
                String id = rig.create(team, "job " + i, "", List.of());
                JsonNode[] done = new JsonNode[1];
                waitFor(Duration.ofMinutes(2), () -> {
                    done[0] = rig.task(team, id);
                    return done[0].path("status").asText().equals("completed");
                });
                ms.add(Duration.between(Instant.parse(done[0].path("createdAt").asText()),
                        Instant.parse(done[0].path("claimedAt").asText())).toMillis());
                owners.add(done[0].path("owner").asText());
                // the claimer is idle again before the next task (so every claim is a pushed wake-up of idle teammates)
                waitFor(Duration.ofMinutes(1), () -> rig.roster(team).values().stream()
                        .allMatch(a -> a.path("status").asText().equals("idle")));
            }
            System.out.printf("[ClaimBenchmark] task_available → claim (created → claimedAt, DB clock), %d tasks, %d idle"
                            + " teammates on %d replicas: p50 %d ms, p90 %d ms, p99 %d ms, max %d ms; %d distinct claimers%n",
                    count, TEAMMATES, REPLICAS, pct(ms, 50), pct(ms, 90), pct(ms, 99), Collections.max(ms), owners.size());
        }
    }

    interface Check {
        boolean ok() throws Exception;
    }

    static void waitFor(Duration max, Check c) throws Exception {
        long end = System.nanoTime() + max.toNanos();
        while (!c.ok()) {
            if (System.nanoTime() > end) {
                throw new IllegalStateException("not reached within " + max);
            }
            Thread.sleep(20); // a benchmark's poll of the board, not a test's wait
        }
    }

    static long pct(List<Long> values, int p) {
        List<Long> s = new ArrayList<>(values);
        Collections.sort(s);
        return s.get(Math.min(s.size() - 1, (int) Math.ceil(p / 100.0 * s.size()) - 1));
    }
}
