package dev.cohort.teammate.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.devstack.model.Scenario;
import dev.cohort.devstack.ServiceProcess;
import dev.cohort.host.client.LeadTasks;
import dev.cohort.teammate.tasks.ClaimCoalescer;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The claim benchmarks — a main class, not a test (nothing runs it in {@code ./mvnw verify}).
 *
 * <ol>
 *   <li><b>claims per second</b> through the lead's internal claim-next: lead-service as a real process (with the
 *       devstack's PostgreSQL and broker), 50 teammates split over 3 replicas (three HTTP clients with their own
 *       connections, as three teammate-service replicas call the lead), each looping claim-next until the board is
 *       empty; duplicates checked from the board ({@code claims} of every task) and from what the clients got.
 *       {@code --mode=batch} (default): each replica's teammates claim through one {@link ClaimCoalescer}, as
 *       teammate-service's auto-claim does (one {@code claim-batch} for a replica's concurrent claims);
 *       {@code single}: one claim-next per claim (as before batched claims); {@code both}. Printed besides: requests,
 *       claims per request, the CPU time per claim of lead-service, PostgreSQL and this JVM, the database's commits
 *       per claim.</li>
 *   <li><b>{@code task_available} → claim latency</b>: the whole team (tool runner, lead-service, 3 teammate-service
 *       replicas, scripted model) with 50 idle teammates; tasks created one at a time; per task the board's
 *       {@code claimedAt − createdAt} (both the database's clock).</li>
 * </ol>
 * Arguments: {@code --tasks=5000 --latency=100 --mode=batch --lead-flags=test}; {@code --lead-flags=up} runs lead-service
 * with {@code cohort up}'s JVM flags ({@link #UP_FLAGS}), {@code test} with devstack's default, anything else as given;
 * {@code --warmup=N} claims N tasks of another team first, unmeasured; {@code --count-statements} counts PostgreSQL's
 * statements per claim and their time by kind from its log ({@code log_min_duration_statement=0}, which costs CPU: not
 * for the CPU figures). Run this JVM
 * with {@code -XX:TieredStopAtLevel=1} ({@link #C1_ONLY}; a warning is printed otherwise).
 */
public final class ClaimBenchmark {

    /**
     * The flag this JVM (clients, embedded broker) should run with: C1 only, so the measured run does not pay for C2
     * compiling the broker and the clients (see {@link #main}); the lead's devstack flags do the same.
     */
    static final String C1_ONLY = "-XX:TieredStopAtLevel=1";

    static final int TEAMMATES = 50;

    /**
     * {@code --analyze-at=N} (0: never): an {@code ANALYZE lead.tasks} once N tasks of the measured run are claimed, to
     * see what fresh planner statistics change (a diagnostic: autoanalyze would do it later on its own).
     */
    static int analyzeAt;
    static final int REPLICAS = 3;

    private ClaimBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int tasks = 5000;
        int latency = 100;
        String mode = "batch";
        int warmup = 0;
        boolean countStatements = false;
        for (String a : args) {
            if (a.startsWith("--tasks=")) {
                tasks = Integer.parseInt(a.substring(8));
            } else if (a.startsWith("--latency=")) {
                latency = Integer.parseInt(a.substring(10));
            } else if (a.startsWith("--warmup=")) {
                warmup = Integer.parseInt(a.substring(9));
            } else if (a.startsWith("--analyze-at=")) {
                analyzeAt = Integer.parseInt(a.substring(13));
            } else if (a.equals("--count-statements")) {
                countStatements = true;
            } else if (a.startsWith("--mode=") && List.of("batch", "single", "both").contains(a.substring(7))) {
                mode = a.substring(7);
            } else if (a.startsWith("--lead-flags=")) {
                String f = a.substring(13);
                // "up": cohort up's JVM flags (cli UpCommand.JVM_FLAGS); "test": devstack's default; else the flags
                System.setProperty(ServiceProcess.JVM_FLAGS_PROPERTY + ".lead-team-it", switch (f) {
                    case "up" -> String.join(" ", UP_FLAGS);
                    case "test" -> String.join(" ", ServiceProcess.DEFAULT_JVM_FLAGS);
                    default -> f;
                });
            } else {
                throw new IllegalArgumentException("unknown argument " + a + " (known: --tasks=N --latency=N"
                        + " --mode=batch|single|both --lead-flags=test|up|'<flags>' --warmup=N --count-statements --analyze-at=N)");
            }
        }
        List<String> ownFlags = ManagementFactory.getRuntimeMXBean().getInputArguments();
        System.out.printf("[ClaimBenchmark] lead-service JVM flags: %s; this JVM's flags: %s; load average %.1f%n",
                ServiceProcess.jvmFlags("lead-team-it"), ownFlags, ManagementFactory
                        .getOperatingSystemMXBean().getSystemLoadAverage());
        if (!ownFlags.contains(C1_ONLY)) {
            // measured 2026-12-02: this JVM's C2 compiler took 420–720 µs of CPU per claim during the measured run (after
            // a warm-up), more than lead-service's request threads, on the 2 cores the system under test needs
            System.out.printf("[ClaimBenchmark] WARNING: run this JVM with %s: its C2 compiler eats the cores the lead and"
                    + " PostgreSQL need (the figures below include it)%n", C1_ONLY);
        }
        if (tasks > 0 && !mode.equals("single")) {
            claimsPerSecond(tasks, true, warmup, countStatements);
        }
        if (tasks > 0 && !mode.equals("batch")) {
            claimsPerSecond(tasks, false, warmup, countStatements);
        }
        if (latency > 0) {
            claimLatency(latency);
        }
    }

    // ---- 1: claims per second

    /** {@code cohort up}'s JVM flags for a service child (cli {@code UpCommand.JVM_FLAGS}, no COHORT_FAST_START). */
    static final List<String> UP_FLAGS = List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:MaxTenuringThreshold=1");

    /**
     * {@code batched}: each replica's teammates claim through one {@link ClaimCoalescer} (as teammate-service's auto-claim
     * does), so concurrent claims of one replica go out as one {@code claim-batch}; else each teammate calls claim-next.
     * {@code warmup} > 0: a first team's {@code warmup} tasks are claimed the same way, not measured (a long-running
     * lead-service has its claim path compiled; a run of a few seconds otherwise measures the JIT compiler too).
     * {@code countStatements}: PostgreSQL logs every statement during the measured claims ({@code log_min_duration_statement=0}),
     * and the statements per claim are printed by kind (this logging costs PostgreSQL CPU: use a separate run).
     */
    static void claimsPerSecond(int tasks, boolean batched, int warmup, boolean countStatements) throws Exception {
        try (TeamStack stack = TeamStack.start(0, Map.of())) {
            ClaimRig rig = new ClaimRig(stack);
            if (warmup > 0) {
                String w = stack.createTeam(batched ? "warmbatch" : "warmbench");
                createTasks(rig, w, warmup);
                Run r = claimAll(stack, w, batched, false);
                System.out.printf("[ClaimBenchmark]   warm-up: %d claims in %.2f s (not measured)%n", r.claims, r.secs);
            }
            String team = stack.createTeam(batched ? "claimbatch" : "claimbench");
            createTasks(rig, team, tasks);
            double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            Run r = claimAll(stack, team, batched, countStatements);
            List<JsonNode> board = rig.board(team);
            long claimedOnce = board.stream().filter(t -> t.path("claims").asInt() == 1
                    && t.path("status").asText().equals("in_progress")).count();
            int n = r.claims;
            System.out.printf("[ClaimBenchmark] %s: %d tasks, %d teammates on %d replicas: %d claims in %.2f s = %.0f"
                            + " claims/s (load average %.1f at start); %d requests (%.1f claims each); request p50 %.1f ms"
                            + " p99 %.1f ms; duplicates (clients) %d; tasks claimed exactly once (board) %d of %d%n",
                    batched ? "claim-batch (coalesced per replica)" : "claim-next (one request per claim)", tasks, TEAMMATES,
                    REPLICAS, n, r.secs, n / r.secs, load, r.requests, n / (double) Math.max(1, r.requests),
                    pct(r.micros, 50) / 1000.0, pct(r.micros, 99) / 1000.0, r.duplicates, claimedOnce, board.size());
            Cost b = r.before;
            Cost a = r.after;
            System.out.printf("[ClaimBenchmark]   CPU per claim: lead-service %.0f µs, PostgreSQL %.0f µs, benchmark JVM"
                            + " (clients, broker) %.0f µs, total %.0f µs; PostgreSQL transactions per claim %.2f%n",
                    (a.leadNs - b.leadNs) / 1e3 / n, (a.pgNs - b.pgNs) / 1e3 / n, (a.selfNs - b.selfNs) / 1e3 / n,
                    ((a.leadNs - b.leadNs) + (a.pgNs - b.pgNs) + (a.selfNs - b.selfNs)) / 1e3 / n,
                    (a.commits - b.commits) / (double) n);
            System.out.printf("[ClaimBenchmark]   lead-service threads, µs per claim: %s%n", ThreadCpu.perClaim(b.leadThreads,
                    a.leadThreads, n));
            System.out.printf("[ClaimBenchmark]   benchmark JVM threads, µs per claim: %s%n", ThreadCpu.perClaim(b.selfThreads,
                    a.selfThreads, n));
            System.out.printf("[ClaimBenchmark]   PostgreSQL processes, µs per claim: %s%n", ThreadCpu.perClaim(b.pgProcesses,
                    a.pgProcesses, n));
            if (r.statements != null) {
                explainCandidates(stack, rig, team);
            }
            if (r.statements != null) {
                long total = r.statements.counts().values().stream().mapToLong(Long::longValue).sum();
                System.out.printf("[ClaimBenchmark]   PostgreSQL statements per claim %.2f (%d): %s%n", total / (double) n,
                        total, r.statements.counts().entrySet().stream()
                                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                                .map(e -> "%.3f %s".formatted(e.getValue() / (double) n, e.getKey()))
                                .collect(Collectors.joining("; ")));
                System.out.printf("[ClaimBenchmark]   PostgreSQL time per claim by kind (parse + bind + execute, as the"
                                + " server logs it; waits included), µs: %s%n", r.statements.micros().entrySet().stream()
                                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                                .map(e -> "%.0f %s".formatted(e.getValue() / (double) n, e.getKey()))
                                .collect(Collectors.joining("; ")));
            }
        }
    }

    /**
     * The plans of the batched claim's candidates statement (a copy of lead-service's {@code CLAIM_BATCH_CANDIDATES}) on
     * the board the run left, 20 new pending tasks, 13 claimers: PostgreSQL's custom plan and its generic plan (what a
     * prepared statement gets after five executions), with their timings. Run in a transaction that is rolled back.
     */
    static void explainCandidates(TeamStack stack, ClaimRig rig, String team) throws Exception {
        createTasks(rig, team, 20);
        for (String mode : List.of("auto", "force_generic_plan")) {
            System.out.printf("[ClaimBenchmark]   candidates plan after the run (%s):%s%n", mode, plan(stack, team, mode));
        }
    }

    /** {@code EXPLAIN ANALYZE} of the candidates statement for 13 claimers, in a transaction rolled back. */
    static String plan(TeamStack stack, String team, String mode) throws Exception {
        String sql = """
                EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
                WITH held AS (
                    SELECT h.id, h.owner FROM unnest(CAST(? AS text[]), CAST(? AS text[])) AS c(agent, token)
                    CROSS JOIN LATERAL (
                        SELECT t.id, t.owner FROM lead.tasks t
                        WHERE t.team = ? AND t.status = 'in_progress' AND t.owner = c.agent AND t.lease_token = c.token
                        FOR UPDATE OF t SKIP LOCKED) AS h),
                pend AS (
                    SELECT t.id, t.role, t.assignee FROM lead.tasks t
                    WHERE t.team = ? AND t.status = 'pending' AND t.owner IS NULL AND t.id > ?
                      AND NOT EXISTS (SELECT 1 FROM lead.task_deps d JOIN lead.tasks dep ON dep.id = d.depends_on
                                      WHERE d.task_id = t.id AND dep.status <> 'completed')
                      AND ((t.assignee IS NULL OR t.assignee = ANY(CAST(? AS text[])))
                           AND (t.role IS NULL OR t.role = ANY(CAST(? AS text[]))))
                    ORDER BY t.id LIMIT ? FOR UPDATE OF t SKIP LOCKED)
                SELECT 0 AS kind, id FROM held UNION ALL SELECT 1, id FROM pend""";
        String[] agents = IntStream.range(0, 13).mapToObj("w%02d"::formatted).toArray(String[]::new);
        String[] tokens = IntStream.range(0, 13).mapToObj(i -> UUID.randomUUID().toString()).toArray(String[]::new);
        try (Connection c = stack.db()) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.execute("SET LOCAL plan_cache_mode = " + mode);
            }
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setArray(1, c.createArrayOf("text", agents));
                ps.setArray(2, c.createArrayOf("text", tokens));
                ps.setString(3, team);
                ps.setString(4, team);
                ps.setLong(5, 0);
                ps.setArray(6, c.createArrayOf("text", agents));
                ps.setArray(7, c.createArrayOf("text", new String[13]));
                ps.setInt(8, 13);
                StringBuilder plan = new StringBuilder();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        plan.append("\n    ").append(rs.getString(1));
                    }
                }
                c.rollback();
                return plan.toString();
            }
        }
    }

    static void createTasks(ClaimRig rig, String team, int tasks) throws Exception {
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
    }

    /** One claim run's figures: claims, seconds, requests and their durations, duplicates, cost before and after. */
    record Run(int claims, double secs, int requests, List<Long> micros, int duplicates, Cost before, Cost after,
            StatementLog.Counted statements) {
    }

    /** 50 teammates on 3 replicas claim until the board of {@code team} is empty. */
    static Run claimAll(TeamStack stack, String team, boolean batched, boolean countStatements) throws Exception {
        List<ExecutorService> clientPools = IntStream.range(0, REPLICAS).mapToObj(i -> Executors.newFixedThreadPool(4))
                .toList();
        List<HttpClient> replicas = clientPools.stream().map(p -> HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1).executor(p).connectTimeout(Duration.ofSeconds(5)).build()).toList();
        List<Long> micros = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger requests = new AtomicInteger();
        List<ClaimCoalescer> coalescers = replicas.stream().map(http -> new ClaimCoalescer((t, claimers) -> {
            long t0 = System.nanoTime();
            HttpResponse<String> r = send(http, stack, team, "/claim-batch", Map.of("leaseSeconds", 600, "claimers",
                    claimers));
            micros.add((System.nanoTime() - t0) / 1000);
            requests.incrementAndGet();
            if (r.statusCode() != 200) {
                throw new IllegalStateException("claim-batch: " + r.statusCode() + " " + r.body());
            }
            Map<String, LeadTasks.Claim> out = new HashMap<>();
            try {
                for (LeadTasks.BatchClaim c : Json.MAPPER.readValue(r.body(), LeadTasks.ClaimBatch.class).claims()) {
                    out.put(c.agent(), c.claim());
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return out;
        }, 50)).toList();
        Map<String, String> got = new ConcurrentHashMap<>();
        AtomicInteger duplicates = new AtomicInteger();
        ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
        StatementLog log = countStatements ? StatementLog.start(stack) : null;
        // with --count-statements: the candidates statement's plan once, mid-run (while batches hold their locks)
        AtomicBoolean planned = new AtomicBoolean(!countStatements);
        AtomicBoolean analyzed = new AtomicBoolean(team.startsWith("warm"));
        Cost before = Cost.now(stack);
        long start = System.nanoTime();
        List<Future<?>> ws = new ArrayList<>();
        for (int t = 0; t < TEAMMATES; t++) {
            String agent = "w%02d".formatted(t);
            int replica = t % REPLICAS;
            HttpClient http = replicas.get(replica);
            ws.add(workers.submit(() -> {
                while (true) {
                    String id;
                    if (batched) {
                        Optional<LeadTasks.Claim> c = coalescers.get(replica).claim(team, agent, null);
                        if (c.isEmpty()) {
                            return null;
                        }
                        id = c.get().task().id();
                    } else {
                        long t0 = System.nanoTime();
                        HttpResponse<String> r = send(http, stack, team, "/claim-next", Map.of("agent", agent,
                                "leaseToken", UUID.randomUUID().toString(), "leaseSeconds", 600));
                        micros.add((System.nanoTime() - t0) / 1000);
                        requests.incrementAndGet();
                        if (r.statusCode() == 204) {
                            return null;
                        }
                        if (r.statusCode() != 200) {
                            throw new IllegalStateException("claim-next: " + r.statusCode() + " " + r.body());
                        }
                        id = TeamStack.json(r.body()).path("task").path("id").asText();
                    }
                    if (got.putIfAbsent(id, agent) != null) {
                        duplicates.incrementAndGet();
                    }
                    if (analyzeAt > 0 && got.size() >= analyzeAt && analyzed.compareAndSet(false, true)) {
                        try (Connection c = stack.db(); Statement st = c.createStatement()) {
                            st.execute("ANALYZE lead.tasks");
                        }
                        System.out.printf("[ClaimBenchmark]   ANALYZE lead.tasks at %d claimed%n", got.size());
                    }
                    if (got.size() >= 1000 && planned.compareAndSet(false, true)) {
                        System.out.printf("[ClaimBenchmark]   candidates plan during the run (%d claimed):%s%n", got.size(),
                                plan(stack, team, "auto"));
                    }
                }
            }));
        }
        for (Future<?> f : ws) {
            f.get();
        }
        double secs = (System.nanoTime() - start) / 1e9;
        Cost after = Cost.now(stack);
        StatementLog.Counted statements = log == null ? null : log.stop();
        workers.shutdown();
        clientPools.forEach(ExecutorService::shutdown); // else their threads keep the JVM alive
        return new Run(got.size(), secs, requests.get(), micros, duplicates.get(), before, after, statements);
    }

    /**
     * {@code log_min_duration_statement = 0} on the stack's PostgreSQL (a superuser, {@code ALTER SYSTEM}) for a while, then the
     * statements of its server log written meanwhile, counted by kind (the first words, literals left out).
     */
    static final class StatementLog {
        private final TeamStack stack;
        private final Path file;
        private final long offset;

        private StatementLog(TeamStack stack, Path file, long offset) {
            this.stack = stack;
            this.file = file;
            this.offset = offset;
        }

        static StatementLog start(TeamStack stack) throws Exception {
            Path file;
            try (Connection c = stack.adminDb(); Statement st = c.createStatement()) {
                try (ResultSet rs = st.executeQuery("SHOW data_directory")) {
                    rs.next();
                    file = Path.of(rs.getString(1)).resolveSibling("server.log"); // devstack's pg_ctl -l
                }
                // every statement with its duration (parse, bind and execute each, for the extended protocol)
                st.execute("ALTER SYSTEM SET log_min_duration_statement = 0");
                st.execute("SELECT pg_reload_conf()");
            }
            Thread.sleep(200); // backends take the reload at their next command; a benchmark's pause, not a test's wait
            return new StatementLog(stack, file, Files.size(file));
        }

        /** Statements by kind (executions), and the server's time by kind in µs (parse, bind and execute summed). */
        record Counted(Map<String, Long> counts, Map<String, Long> micros) {
        }

        Counted stop() throws Exception {
            try (Connection c = stack.adminDb(); Statement st = c.createStatement()) {
                st.execute("ALTER SYSTEM RESET log_min_duration_statement");
                st.execute("SELECT pg_reload_conf()");
            }
            Map<String, Long> kinds = new TreeMap<>();
            Map<String, Long> micros = new TreeMap<>();
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
                f.seek(offset);
                byte[] b = new byte[(int) (f.length() - offset)];
                f.readFully(b);
                Matcher m = Pattern.compile(
                        "LOG:  duration: ([0-9.]+) ms  (?:(parse|bind|execute) [^:]*|statement): (.*)")
                        .matcher(new String(b, StandardCharsets.UTF_8));
                while (m.find()) {
                    String kind = kind(m.group(3));
                    if (m.group(2) == null || m.group(2).equals("execute")) {
                        kinds.merge(kind, 1L, Long::sum);
                    }
                    micros.merge(kind, Math.round(Double.parseDouble(m.group(1)) * 1000), Long::sum);
                }
            }
            return new Counted(kinds, micros);
        }

        /** A statement's kind: its verb and table, e.g. {@code INSERT lead.events}, {@code WITH … lead.tasks}. */
        static String kind(String sql) {
            String s = sql.strip();
            String verb = s.split("\\s+", 2)[0].toUpperCase(Locale.ROOT);
            Matcher t = Pattern.compile("(lead\\.[a-z_]+)").matcher(s);
            return t.find() ? verb + " " + t.group(1) : verb;
        }
    }

    /** Per-thread CPU of a process from {@code /proc/<pid>/task/<tid>/stat}, by thread name with its digits left out. */
    static final class ThreadCpu {
        private static final long TICK_NS = 10_000_000L; // USER_HZ = 100 on Linux

        static Map<String, Long> of(long pid) {
            Map<String, Long> out = new HashMap<>();
            Path dir = Path.of("/proc/" + pid + "/task");
            try (Stream<Path> tasks = Files.list(dir)) {
                for (Path t : tasks.toList()) {
                    String stat;
                    try {
                        stat = Files.readString(t.resolve("stat"));
                    } catch (IOException gone) {
                        continue; // the thread ended meanwhile
                    }
                    int open = stat.indexOf('(');
                    int close = stat.lastIndexOf(')');
                    String name = stat.substring(open + 1, close).replaceAll("[0-9]+", "#");
                    String[] f = stat.substring(close + 2).split(" ");
                    long ns = (Long.parseLong(f[11]) + Long.parseLong(f[12])) * TICK_NS; // utime, stime
                    out.merge(name, ns, Long::sum);
                }
            } catch (IOException e) {
                return Map.of();
            }
            return out;
        }

        /** The top thread kinds by CPU between two readings, µs per claim (threads ended meanwhile are not counted). */
        static String perClaim(Map<String, Long> before, Map<String, Long> after, int claims) {
            return after.entrySet().stream()
                    .map(e -> Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L)))
                    .filter(e -> e.getValue() > 0)
                    .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(10)
                    .map(e -> "%s %.0f".formatted(e.getKey(), e.getValue() / 1e3 / claims))
                    .collect(Collectors.joining(", "));
        }
    }

    static HttpResponse<String> send(HttpClient http, TeamStack stack, String team, String path, Object body) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(stack.leadUrl() + "/internal/v1/teams/" + team + "/tasks"
                            + path)).header("Content-Type", "application/json")
                    .header("Authorization", "Bearer " + TeamStack.INTERNAL_TOKEN).timeout(Duration.ofSeconds(30))
                    .POST(HttpRequest.BodyPublishers.ofString(Json.write(body))).build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** CPU time so far of lead-service, of PostgreSQL (postmaster and backends) and of this JVM; the DB's commits. */
    record Cost(long leadNs, long pgNs, long selfNs, long commits, Map<String, Long> leadThreads,
            Map<String, Long> selfThreads, Map<String, Long> pgProcesses) {
        static Cost now(TeamStack stack) throws Exception {
            long lead = 0;
            Map<String, Long> leadThreads = Map.of();
            for (ProcessHandle p : ProcessHandle.current().descendants().toList()) {
                if (p.info().commandLine().orElse("").contains("lead-service")) {
                    lead += p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
                    leadThreads = ThreadCpu.of(p.pid());
                }
            }
            // PostgreSQL may run detached (pg_ctl): its postmaster is the one of our data directory, read from the server
            long pg = 0;
            String dataDir;
            try (Connection c = stack.adminDb(); Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SHOW data_directory")) {
                rs.next();
                dataDir = rs.getString(1);
            }
            Map<String, Long> pgProcesses = new HashMap<>();
            for (ProcessHandle p : ProcessHandle.allProcesses().toList()) {
                if (p.info().commandLine().orElse("").contains(dataDir)) {
                    pg += p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
                    pgProcesses.merge("postmaster", p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L), Long::sum);
                    for (ProcessHandle b : p.descendants().toList()) {
                        long ns = b.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
                        pg += ns;
                        pgProcesses.merge(pgKind(b.pid()), ns, Long::sum);
                    }
                }
            }
            long self = ProcessHandle.current().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
            long commits;
            try (Connection c = stack.db(); Statement st = c.createStatement()) {
                st.execute("SELECT pg_stat_force_next_flush()");
                try (ResultSet rs = st.executeQuery(
                        "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")) {
                    rs.next();
                    commits = rs.getLong(1);
                }
            } catch (SQLException e) {
                commits = -1;
            }
            return new Cost(lead, pg, self, commits, leadThreads, ThreadCpu.of(ProcessHandle.current().pid()), pgProcesses);
        }

        /**
         * A PostgreSQL child by its process title ({@code /proc/<pid>/cmdline}, which PostgreSQL rewrites): a client
         * connection ({@code postgres: user db host(port) state}) is a "backend", else the title without digits
         * (walwriter, checkpointer, autovacuum worker, …).
         */
        static String pgKind(long pid) {
            try {
                String title = Files.readString(Path.of("/proc/" + pid + "/cmdline"))
                        .replace('\0', ' ').strip();
                title = title.startsWith("postgres: ") ? title.substring(10) : title;
                return title.contains("(") ? "backend" : title.replaceAll("[0-9]+", "#");
            } catch (IOException gone) {
                return "ended";
            }
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
            Set<String> owners = new HashSet<>();
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
