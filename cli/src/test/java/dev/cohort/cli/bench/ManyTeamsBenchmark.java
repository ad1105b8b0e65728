package dev.cohort.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cohort.cli.UpCommand;
import dev.cohort.devstack.model.Reply;
import dev.cohort.devstack.model.Scenario;
import dev.cohort.devstack.model.ScriptedModelServer;
import dev.cohort.devstack.Ports;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.CommandLine;

/**
 * The many-teams benchmark: T teams at once, each a lead and two teammates all working 20-round turns of the round
 * benchmark's bench ({@code bash "true N"} against the zero-latency scripted model), on {@code cohort up}'s processes.
 * Not a test (nothing runs it in {@code ./mvnw verify}); a main class, run as {@code docs/benchmarks/many-teams.md} says.
 *
 * <p>It runs {@link UpCommand} in this JVM, as the CLI's JVM runs it ({@code cohort up --scripted-model}: the broker,
 * PostgreSQL and the model here, the services as child JVMs with {@code cohort up}'s flags, environment and AOT caches),
 * with 2 lead-service and 2 teammate-service replicas and one tool runner, whose teams each have their long-lived
 * sandbox. For each T it creates T teams over the API and runs them twice: their first batch (each lead spawns its two
 * teammates, whose first turn is the bench, then runs the bench itself; the teams' sandboxes start), then the measured
 * batch (each lead messages its teammates the bench instead). A batch sends every team its prompt at the same moment
 * and ends when every agent's bench turn is done. Warm-up batches of their own teams run first.
 *
 * <p>Figures per measured batch: aggregate rounds per second (every agent's rounds / first prompt sent → last agent
 * done); the round gap (between two consecutive model requests of one agent's turn, as the model server sees them
 * arrive) p50/p90/p99 over every agent, and by role; CPU ms per round of each process, of the tool runner's sandboxes
 * and of the machine (every process and the kernel), and the kernel's share; how busy the cores were. The machine's
 * bound is the cores ÷ the machine's CPU per round in the one-team batch of the same run; the targets are printed
 * against it.
 *
 * <p>Options ({@code --name=value}): {@code teams} (1,10,50), {@code rounds} (20), {@code warmup} (10 teams; 0: none)
 * and {@code warmup-batches} (4), {@code repeat} (1: measured batches per T, reported as one), {@code admit} (0; K:
 * admission at the door, the measured batch's prompts go to at most K teams at a time), {@code idle} (0; N: then N
 * more teams each run one round per agent and go idle, and the memory each idle team costs is printed: the services'
 * heap after a full GC, their RSS, the PSS of the sandboxes and of PostgreSQL, before and after, divided by N),
 * {@code lead-replicas} and {@code teammate-replicas} (2), {@code timeout-min} (20), {@code sample-commands} (the
 * command lines seen in the sandboxes during each batch), {@code jfr=DIR} (a JFR recording of every service over the
 * measured batches), {@code home} (the repository, default the current directory). Everything it starts is stopped at
 * the end, as {@code cohort up} stops it.
 */
public final class ManyTeamsBenchmark {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> MATES = List.of("ann", "bob");

    private final Map<String, String> opts;
    private final int rounds;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private UpCommand up;
    private String leadUrl;
    private String token;
    private ScriptedModelServer model;
    /** Every bench reply the model gave: which agent, when its request arrived, and what the reply was. */
    private final ConcurrentLinkedQueue<Step> steps = new ConcurrentLinkedQueue<>();
    /** When each agent's bench turn of each batch ended (its DONE reply), by {@code agent#batch}. */
    private final Map<String, Instant> done = new ConcurrentHashMap<>();

    /** One model request of a bench turn: the batch, the agent, its arrival, and whether the reply ended the turn. */
    record Step(String batch, String agent, long nanos, boolean last) {
    }

    ManyTeamsBenchmark(Map<String, String> opts) {
        this.opts = opts;
        this.rounds = Integer.parseInt(opts.getOrDefault("rounds", "20"));
        if (rounds < 1) {
            throw new IllegalArgumentException("rounds must be 1 or more");
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = PeerHarnesses.options(args);
        ManyTeamsBenchmark b = new ManyTeamsBenchmark(opts);
        try {
            b.run();
        } finally {
            if (b.up != null) {
                b.up.stop();
            }
        }
        System.exit(0); // the embedded broker's non-daemon threads
    }

    void run() throws Exception {
        List<Integer> sizes = Arrays.stream(opts.getOrDefault("teams", "1,10,50").split(",")).map(String::trim)
                .map(Integer::parseInt).toList();
        int warmup = Integer.parseInt(opts.getOrDefault("warmup", "10"));
        int idle = Integer.parseInt(opts.getOrDefault("idle", "0"));
        start();
        System.out.printf("[many-teams] %s, %d cores; services: %s%n", Instant.now(), Runtime.getRuntime().availableProcessors(),
                up.servicePids().keySet());
        int warmupBatches = Integer.parseInt(opts.getOrDefault("warmup-batches", "4"));
        int repeat = Integer.parseInt(opts.getOrDefault("repeat", "1"));
        if (warmup > 0 && warmupBatches > 0) {
            List<String> ids = teams("w", warmup);
            for (int i = 1; i <= warmupBatches; i++) {
                Batch w = batch("w" + i, ids, i == 1);
                System.out.printf("[many-teams] warm-up batch %d: %d teams, %.1f rounds/s%n", i, warmup, w.roundsPerSecond());
            }
        }
        List<Batch> results = new ArrayList<>();
        for (int t : sizes) {
            // the teams' first batch spawns their teammates and starts their sandboxes; the measured batch is the next
            List<String> ids = teams("t" + t + "x", t);
            Batch f = batch("f" + t, ids, true);
            System.out.printf("%n[many-teams] %d new teams' first batch (teammates spawned, sandboxes started): %.1f rounds/s,"
                    + " round gap p50 %.1f ms, p99 %.1f ms%n", t, f.roundsPerSecond(), pct(f.gaps, 50), pct(f.gaps, 99));
            jfr("start", t);
            Batch b = batch("m" + t, ids, false);
            for (int r = 2; r <= repeat; r++) {
                b = b.and(batch("m" + t + "r" + r, ids, false));
            }
            jfr("stop", t);
            results.add(b);
            b.print();
        }
        summary(results);
        if (idle > 0) {
            idleMemory(idle);
        }
    }

    // ------------------------------------------------------------------------------------------------ start-up

    private void start() throws Exception {
        Path home = Path.of(opts.getOrDefault("home", ".")).toAbsolutePath().normalize();
        System.setProperty("cohort.home", home.toString());
        Path runDir = Files.createTempDirectory("cohort-many-teams-");
        Path ws = Files.createDirectories(runDir.resolve("workspace"));
        new ProcessBuilder("git", "init", "-q", ws.toString()).inheritIO().start().waitFor();
        int leadPort = 0;
        // free ports are picked here and bound by the services a few seconds later: another program may take one in
        // between, and that start fails; then again, on other ports
        for (int attempt = 1; ; attempt++) {
            leadPort = Ports.free();
            up = new UpCommand();
            new CommandLine(up).parseArgs("--scripted-model", "--workspace", ws.toString(),
                    "--lead-replicas", opts.getOrDefault("lead-replicas", "2"),
                    "--teammate-replicas", opts.getOrDefault("teammate-replicas", "2"),
                    "--kafka-port", Integer.toString(Ports.free()), "--pg-port", Integer.toString(Ports.free()),
                    "--lead-port", Integer.toString(leadPort), "--teammate-port", Integer.toString(Ports.free()),
                    "--scheduler-port", Integer.toString(Ports.free()), "--tool-runner-port", Integer.toString(Ports.free()));
            UpCommand starting = up;
            CompletableFuture<Integer> ended = new CompletableFuture<>();
            Thread.ofPlatform().daemon().name("cohort-up").start(() -> {
                try {
                    ended.complete(starting.call());
                } catch (Exception e) {
                    ended.completeExceptionally(e);
                }
            });
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            while (!up.awaitReady(Duration.ofMillis(250)) && !ended.isDone() && System.nanoTime() < deadline) {
                // waiting
            }
            if (up.awaitReady(Duration.ZERO)) {
                break;
            }
            up.stop();
            if (attempt == 3 || !ended.isDone()) {
                throw new IllegalStateException("cohort up did not start (attempt " + attempt + ")");
            }
            System.out.printf("[many-teams] cohort up did not start (attempt %d); again on other ports%n", attempt);
        }
        leadUrl = "http://127.0.0.1:" + leadPort;
        token = up.apiToken();
        model = up.devstack().model();
        model.respond("bench-lead", "[a-z0-9]+/lead", this::lead);
        model.respond("bench-mate", "[a-z0-9]+/(" + String.join("|", MATES) + ")", this::teammate);
        // memory extraction after a turn, and any other request (a lead woken by its teammates' results): answered, not counted
        model.load(Scenario.parse("{\"rules\":[{\"name\":\"memory\",\"match\":{\"system\":\"You (extract|select|consolidate)"
                + " memor\"},\"reply\":{\"text\":\"[]\"}},{\"name\":\"other\",\"reply\":{\"text\":\"ok\"}}]}"));
        // the model's request log keeps every body: cleared all the time, as nothing here reads it
        Thread.ofPlatform().daemon().name("model-log-clear").start(() -> {
            while (true) {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
                model.clearLog();
            }
        });
    }

    // ------------------------------------------------------------------------------------------------ the model

    /**
     * A lead's reply: in a team's first batch two spawns, in a later one a message to each teammate (they exist), whose
     * text starts their bench turn; then the bench's rounds, then DONE; anything outside a bench turn gets "ok".
     */
    Reply lead(JsonNode body) {
        String agent = body.path("user").asText();
        Turn t = Turn.of(body, LEAD_MARKER);
        if (t == null) {
            return null;
        }
        String team = agent.substring(0, agent.indexOf('/'));
        if (!t.delegated) {
            steps.add(new Step(t.batch, agent, System.nanoTime(), false));
            List<Reply.ToolCall> calls = new ArrayList<>();
            for (String m : MATES) {
                String work = MATE_MARKER + " " + team + "/" + m + " #" + t.batch + "#";
                calls.add(t.first
                        ? Reply.ToolCall.of("spawn_teammate", "{\"name\":\"" + m + "\",\"role\":\"bench worker\",\"prompt\":\"" + work + "\"}")
                        : Reply.ToolCall.of("send_message", "{\"to\":\"" + m + "\",\"content\":\"" + work + "\"}"));
            }
            return Reply.toolCalls(calls.toArray(Reply.ToolCall[]::new));
        }
        return round(agent, t);
    }

    /** A teammate's reply: the bench's rounds, then DONE. */
    Reply teammate(JsonNode body) {
        Turn t = Turn.of(body, MATE_MARKER);
        return t == null ? null : round(body.path("user").asText(), t);
    }

    private Reply round(String agent, Turn t) {
        long now = System.nanoTime();
        int n = t.batch.equals("idle") ? 1 : rounds;
        if (t.rounds >= n) {
            if (t.rounds == n && done.putIfAbsent(agent + "#" + t.batch, Instant.now()) == null) {
                steps.add(new Step(t.batch, agent, now, true));
            }
            return Reply.text("DONE");
        }
        steps.add(new Step(t.batch, agent, now, false));
        return Reply.toolCalls(Reply.ToolCall.of("bash", "{\"command\":\"true " + (t.rounds + 1) + "\"}"));
    }

    static final String LEAD_MARKER = "bench turn";
    static final String MATE_MARKER = "bench work";
    private static final Pattern BATCH = Pattern.compile("#([a-z0-9]+)#(first)?");

    /**
     * Where an agent's bench turn stands, read from the conversation the request carries: after the last user message
     * that starts the bench ({@code marker}, then {@code #batch#}, and {@code first} in a team's first batch), whether
     * the lead delegated (spawned or messaged its teammates) and how many bash calls it made. Null for a request that is
     * not in a running bench turn (memory extraction, a lead woken later by its teammates' results).
     */
    record Turn(String batch, boolean first, boolean delegated, int rounds) {
        static Turn of(JsonNode body, String marker) {
            JsonNode msgs = body.path("messages");
            int start = -1;
            Matcher batch = null;
            for (int i = 0; i < msgs.size(); i++) {
                JsonNode m = msgs.get(i);
                String role = m.path("role").asText();
                if (role.equals("system") && m.path("content").asText().matches("(?s)^You (extract|select|consolidate) memor.*")) {
                    return null;
                }
                String text = text(m);
                int at = role.equals("user") ? text.lastIndexOf(marker) : -1;
                if (at >= 0) {
                    Matcher b = BATCH.matcher(text.substring(at));
                    if (b.find()) {
                        start = i;
                        batch = b;
                    }
                }
            }
            if (start < 0) {
                return null;
            }
            boolean delegated = false;
            int bash = 0;
            for (int i = start + 1; i < msgs.size(); i++) {
                JsonNode m = msgs.get(i);
                if (!m.path("role").asText().equals("assistant")) {
                    continue;
                }
                if (m.path("tool_calls").isEmpty()) {
                    return null; // the turn ended (DONE) before this request
                }
                for (JsonNode c : m.path("tool_calls")) {
                    String name = c.path("function").path("name").asText();
                    delegated |= name.equals("spawn_teammate") || name.equals("send_message");
                    bash += name.equals("bash") ? 1 : 0;
                }
            }
            return new Turn(batch.group(1), batch.group(2) != null, delegated, bash);
        }

        private static String text(JsonNode m) {
            return m.path("content").isTextual() ? m.path("content").asText() : m.path("content").toString();
        }
    }

    // ------------------------------------------------------------------------------------------------ a batch

    /** One batch's figures. */
    record Batch(int teams, int agents, int rounds, double wallSecs, List<Double> gaps, List<Double> leadGaps,
                 List<Double> mateGaps, Map<String, Long> cpuTicks, long busyTicks, long kernelTicks, double turnP50,
                 double turnMax) {

        double roundsPerSecond() {
            return rounds / wallSecs;
        }

        /** This batch and {@code o} (the same teams again) as one: their rounds, wall time, gaps and CPU together. */
        Batch and(Batch o) {
            Map<String, Long> cpu = new LinkedHashMap<>(cpuTicks);
            o.cpuTicks.forEach((k, v) -> cpu.merge(k, v, Long::sum));
            return new Batch(teams, agents, rounds + o.rounds, wallSecs + o.wallSecs, concat(gaps, o.gaps),
                    concat(leadGaps, o.leadGaps), concat(mateGaps, o.mateGaps), cpu, busyTicks + o.busyTicks,
                    kernelTicks + o.kernelTicks, Math.max(turnP50, o.turnP50), Math.max(turnMax, o.turnMax));
        }

        private static List<Double> concat(List<Double> a, List<Double> b) {
            List<Double> out = new ArrayList<>(a);
            out.addAll(b);
            return out;
        }

        /** The machine's busy CPU ms per round. */
        double machineMsPerRound() {
            return busyTicks * 10.0 / rounds;
        }

        void print() {
            System.out.printf("%n[many-teams] %d teams (%d agents): %d rounds in %.1f s = %.1f rounds/s; each team's work done"
                    + " in %.1f s p50, %.1f s at most%n", teams, agents, rounds, wallSecs, roundsPerSecond(), turnP50, turnMax);
            System.out.printf("  round gap, every agent: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms (%d gaps)%n", pct(gaps, 50),
                    pct(gaps, 90), pct(gaps, 99), gaps.size());
            System.out.printf("  round gap, leads: p50 %.1f / p99 %.1f ms; teammates: p50 %.1f / p99 %.1f ms%n",
                    pct(leadGaps, 50), pct(leadGaps, 99), pct(mateGaps, 50), pct(mateGaps, 99));
            System.out.printf("  cores busy %.0f %% (kernel %.0f %% of that); CPU ms per round:%n",
                    100.0 * busyTicks / (wallSecs * 100 * Runtime.getRuntime().availableProcessors()),
                    busyTicks == 0 ? 0.0 : 100.0 * kernelTicks / busyTicks);
            cpuTicks.entrySet().stream().filter(e -> e.getValue() > 0).sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                    .forEach(e -> System.out.printf("    %-44s %6.2f%n", e.getKey(), e.getValue() * 10.0 / rounds));
            System.out.printf("    %-44s %6.2f%n", "the machine (every process, the kernel)", machineMsPerRound());
        }
    }

    /** Teams {@code prefix01} … created over the API. */
    private List<String> teams(String prefix, int n) throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            ids.add(String.format(n > 99 ? "%s%03d" : "%s%02d", prefix, i));
        }
        createTeams(ids);
        return ids;
    }

    /**
     * One batch: a prompt to each of the teams at once ({@code first}: the teams' first, whose leads spawn their
     * teammates; else the leads message them), until every agent's bench turn is done.
     */
    private Batch batch(String batch, List<String> ids, boolean first) throws Exception {
        int teams = ids.size();
        steps.clear();
        Map<String, Long> cpu0 = ProcTree.cpuByGroup(up.servicePids());
        long[] stat0 = ProcTree.machine();
        long t0 = System.nanoTime();
        Instant sent = Instant.now();
        Map<Long, String> seen = new ConcurrentHashMap<>();
        Thread sampler = Boolean.parseBoolean(opts.getOrDefault("sample-commands", "false"))
                ? Thread.ofPlatform().daemon().start(() -> {
                    while (!Thread.currentThread().isInterrupted()) {
                        ProcTree.commandsIn(ProcTree.SANDBOXES, up.servicePids()).forEach(seen::putIfAbsent);
                        try {
                            Thread.sleep(5);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }) : null;
        int admit = first ? 0 : Integer.parseInt(opts.getOrDefault("admit", "0"));
        Duration timeout = Duration.ofMinutes(Integer.parseInt(opts.getOrDefault("timeout-min", "20")));
        if (admit <= 0 || admit >= ids.size()) {
            prompts(ids, batch, first);
        } else {
            admitted(ids, batch, admit, timeout);
        }
        int agents = teams * (1 + MATES.size());
        awaitDone(ids, batch, timeout);
        long t1 = lastStep();
        if (sampler != null) {
            sampler.interrupt();
            Map<String, Integer> counts = new TreeMap<>();
            seen.values().forEach(c -> counts.merge(c, 1, Integer::sum));
            System.out.printf("[many-teams] processes seen in the sandboxes (sampled every 5 ms), by command line:%n");
            counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(20)
                    .forEach(e -> System.out.printf("  %5d  %s%n", e.getValue(), e.getKey()));
        }
        Map<String, Long> cpu1 = ProcTree.cpuByGroup(up.servicePids());
        long[] stat1 = ProcTree.machine();
        // per agent: its steps in arrival order; the gaps between consecutive ones are its rounds
        Map<String, List<Long>> byAgent = new TreeMap<>();
        for (Step s : steps) {
            if (s.batch.equals(batch)) {
                byAgent.computeIfAbsent(s.agent, k -> new ArrayList<>()).add(s.nanos);
            }
        }
        List<Double> gaps = new ArrayList<>();
        List<Double> leadGaps = new ArrayList<>();
        List<Double> mateGaps = new ArrayList<>();
        for (var e : byAgent.entrySet()) {
            List<Long> ts = e.getValue();
            ts.sort(Long::compare);
            for (int i = 1; i < ts.size(); i++) {
                double g = (ts.get(i) - ts.get(i - 1)) / 1e6;
                gaps.add(g);
                (e.getKey().endsWith("/lead") ? leadGaps : mateGaps).add(g);
            }
        }
        int expected = teams * (rounds + 1 + MATES.size() * rounds);
        if (gaps.size() != expected) {
            throw new IllegalStateException("expected " + expected + " rounds in the batch of " + teams + ", counted " + gaps.size());
        }
        List<Double> teamSecs = new ArrayList<>();
        for (String id : ids) {
            Instant last = Stream.concat(Stream.of(id + "/lead"), MATES.stream().map(m -> id + "/" + m)).map(a -> done.get(a + "#" + batch))
                    .max(Instant::compareTo).orElseThrow();
            teamSecs.add(Duration.between(sent, last).toMillis() / 1000.0);
        }
        Map<String, Long> cpu = new LinkedHashMap<>();
        for (var e : cpu1.entrySet()) {
            cpu.put(e.getKey(), e.getValue() - cpu0.getOrDefault(e.getKey(), 0L));
        }
        return new Batch(teams, agents, gaps.size(), (t1 - t0) / 1e9, gaps, leadGaps, mateGaps, cpu, stat1[0] - stat0[0],
                stat1[1] - stat0[1], pct(teamSecs, 50), pct(teamSecs, 100));
    }

    private long lastStep() {
        return steps.stream().filter(Step::last).mapToLong(Step::nanos).max().orElse(System.nanoTime());
    }

    private void createTeams(List<String> ids) throws Exception {
        for (String id : ids) {
            HttpResponse<String> r = post("/api/v1/teams", Map.of("id", id));
            if (r.statusCode() != 201) {
                throw new IllegalStateException("POST /api/v1/teams " + id + " answered " + r.statusCode() + ": " + r.body());
            }
            // the bench's conversations grow batch after batch: no token budget stops a team halfway
            HttpResponse<String> b = send("PUT", "/api/v1/teams/" + id + "/budgets",
                    Map.of("tokensPerTeamPerDay", 0, "tokensPerTeam", 0, "tokensPerAgent", 0, "tokensPerTurn", 0));
            if (b.statusCode() != 200) {
                throw new IllegalStateException("PUT budgets of " + id + " answered " + b.statusCode() + ": " + b.body());
            }
        }
    }

    /** One prompt to each team, all sent at the same moment (a thread each). */
    private void prompts(List<String> ids, String batch, boolean first) {
        List<CompletableFuture<Void>> sends = new ArrayList<>();
        for (String id : ids) {
            sends.add(CompletableFuture.runAsync(() -> {
                try {
                    HttpResponse<String> r = post("/api/v1/teams/" + id + "/prompts", Map.of("text",
                            LEAD_MARKER + " " + id + " #" + batch + "#" + (first ? "first" : "")));
                    if (r.statusCode() != 202) {
                        throw new IllegalStateException("prompt to " + id + " answered " + r.statusCode() + ": " + r.body());
                    }
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException("prompt to " + id + ": " + e, e);
                }
            }, Thread::startVirtualThread));
        }
        CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).join();
    }

    /**
     * Admission at the door ({@code admit=K}): the prompts go to at most K teams at a time, the next as soon as a team's
     * three agents are done: the same work in waves, for the round gap under admission control against all at once.
     */
    private void admitted(List<String> ids, String batch, int admit, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int sent = 0;
        while (sent < ids.size()) {
            int busy = 0;
            for (String id : ids.subList(0, sent)) {
                boolean teamDone = done.containsKey(id + "/lead#" + batch)
                        && MATES.stream().allMatch(m -> done.containsKey(id + "/" + m + "#" + batch));
                busy += teamDone ? 0 : 1;
            }
            if (busy < admit) {
                prompts(ids.subList(sent, Math.min(ids.size(), sent + admit - busy)), batch, false);
                sent = Math.min(ids.size(), sent + admit - busy);
            } else if (System.nanoTime() > deadline) {
                throw new IllegalStateException("admission: " + busy + " teams still busy after " + timeout);
            } else {
                Thread.sleep(5);
            }
        }
    }

    private void awaitDone(List<String> ids, String batch, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> agents = new ArrayList<>();
        for (String id : ids) {
            agents.add(id + "/lead#" + batch);
            MATES.forEach(m -> agents.add(id + "/" + m + "#" + batch));
        }
        while (!done.keySet().containsAll(agents)) {
            if (System.nanoTime() > deadline) {
                List<String> missing = agents.stream().filter(a -> !done.containsKey(a)).toList();
                throw new IllegalStateException(missing.size() + " agents not done after " + timeout + ": "
                        + missing.subList(0, Math.min(10, missing.size())));
            }
            Thread.sleep(100);
        }
    }

    private HttpResponse<String> post(String path, Object body) throws IOException, InterruptedException {
        return send("POST", path, body);
    }

    private HttpResponse<String> send(String method, String path, Object body) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(leadUrl + path)).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /**
     * With {@code jfr=DIR}: a JFR recording ({@code settings=profile}) of every service JVM over a measured batch,
     * {@code DIR/<service>-<teams>.jfr}.
     */
    private void jfr(String what, int teams) throws Exception {
        String dir = opts.get("jfr");
        if (dir == null) {
            return;
        }
        Files.createDirectories(Path.of(dir));
        for (var e : up.servicePids().entrySet()) {
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(e.getValue())));
            if (what.equals("start")) {
                cmd.addAll(List.of("JFR.start", "name=mt", "settings=profile"));
            } else {
                cmd.addAll(List.of("JFR.stop", "name=mt", "filename=" + Path.of(dir, e.getKey() + "-" + teams + ".jfr").toAbsolutePath()));
            }
            new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
        }
    }

    // ------------------------------------------------------------------------------------------------ the report

    private void summary(List<Batch> results) {
        Batch one = results.stream().filter(b -> b.teams == 1).findFirst().orElse(null);
        System.out.printf("%n| teams | agents | rounds/s | share of the bound | round gap p50 | p99 | p99 ÷ 1-team p50 | cores busy | kernel share |%n");
        System.out.printf("|---|---|---|---|---|---|---|---|---|%n");
        int cores = Runtime.getRuntime().availableProcessors();
        double bound = one == null ? Double.NaN : cores * 1000.0 / one.machineMsPerRound();
        for (Batch b : results) {
            System.out.printf("| %d | %d | %.1f | %s | %.1f ms | %.1f ms | %s | %.0f %% | %.0f %% |%n", b.teams, b.agents,
                    b.roundsPerSecond(), one == null ? "-" : String.format("%.0f %%", 100 * b.roundsPerSecond() / bound),
                    pct(b.gaps, 50), pct(b.gaps, 99), one == null ? "-" : String.format("%.1f", pct(b.gaps, 99) / pct(one.gaps, 50)),
                    100.0 * b.busyTicks / (b.wallSecs * 100 * cores), b.busyTicks == 0 ? 0.0 : 100.0 * b.kernelTicks / b.busyTicks);
        }
        if (one != null) {
            System.out.printf("%nthe machine's bound: %d cores ÷ %.2f CPU ms per round (the one-team batch, every process and the"
                    + " kernel) = %.1f rounds/s%n", cores, one.machineMsPerRound(), bound);
            Batch last = results.getLast();
            System.out.printf("targets at %d teams: rounds/s ≥ 60 %% of the bound: %s (%.0f %%); p99 round gap ≤ 10 × the one-team"
                    + " p50: %s (%.1f ms ≤ %.1f ms)%n", last.teams, last.roundsPerSecond() >= 0.6 * bound ? "met" : "NOT met",
                    100 * last.roundsPerSecond() / bound, pct(last.gaps, 99) <= 10 * pct(one.gaps, 50) ? "met" : "NOT met",
                    pct(last.gaps, 99), 10 * pct(one.gaps, 50));
        }
    }

    // ------------------------------------------------------------------------------------------------ idle teams

    private void idleMemory(int n) throws Exception {
        Map<String, ProcTree.Memory> before = ProcTree.memory(up.servicePids());
        List<String> ids = teams("i", n);
        prompts(ids, "idle", true);
        awaitDone(ids, "idle", Duration.ofMinutes(20));
        Thread.sleep(5000); // the turns' last events, memory extraction and the teammates' results settle
        Map<String, ProcTree.Memory> after = ProcTree.memory(up.servicePids());
        System.out.printf("%n[many-teams] memory per idle team (%d teams, each a lead and two teammates that ran one round and"
                + " went idle, and its sandbox), after a full GC of every service:%n", n);
        System.out.printf("| process | heap used after GC | RSS / PSS | per idle team (heap) | per idle team (RSS / PSS) |%n|---|---|---|---|---|%n");
        double heapSum = 0;
        double rssSum = 0;
        for (var e : after.entrySet()) {
            ProcTree.Memory a = e.getValue();
            ProcTree.Memory b = before.getOrDefault(e.getKey(), new ProcTree.Memory(0, 0));
            double heapPer = (a.heapUsedKb() - b.heapUsedKb()) / (double) n;
            double rssPer = (a.residentKb() - b.residentKb()) / (double) n;
            heapSum += Math.max(0, heapPer);
            rssSum += rssPer;
            System.out.printf("| %s | %s | %.1f MB | %s | %.0f KB |%n", e.getKey(), a.heapUsedKb() < 0 ? "-"
                    : String.format("%.1f MB", a.heapUsedKb() / 1024.0), a.residentKb() / 1024.0,
                    a.heapUsedKb() < 0 ? "-" : String.format("%.0f KB", heapPer), rssPer);
        }
        System.out.printf("| all | | | %.0f KB | %.0f KB |%n", heapSum, rssSum);
    }

    static double pct(List<Double> xs, double p) {
        if (xs.isEmpty()) {
            return Double.NaN;
        }
        List<Double> s = new ArrayList<>(xs);
        s.sort(Double::compare);
        int i = (int) Math.ceil(p / 100.0 * s.size()) - 1;
        return s.get(Math.max(0, Math.min(s.size() - 1, i)));
    }
}
