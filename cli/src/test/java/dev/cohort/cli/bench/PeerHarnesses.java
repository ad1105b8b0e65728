package dev.cohort.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.InputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;

/**
 * The round benchmark run on Claude Code and Codex CLI, so Cohort's round gap can be compared with theirs in one run.
 * Not a test; a main class (also called by {@link RoundBenchmark} with {@code --peers=claude,codex}), described in
 * {@code lead-service/README.md} ("Claude Code and Codex side by side").
 *
 * <p>The sequence: install the two CLIs with npm into a cache directory outside the repository (only when the
 * pinned version is missing; skipped with a message when npm or the install fails); start one zero-latency model
 * endpoint ({@link PeerModelServer}) speaking both wire formats the tools use, Anthropic Messages for Claude Code and
 * the OpenAI Responses API for Codex's custom provider; then run warm-up and measured turns, the tools taking turns
 * (so a change of load hits both alike), each turn a fresh non-interactive process in one git-initialised working
 * directory (as a user runs them), whose model answers 20 distinct shell calls ({@code true N}) and then
 * {@code DONE}. The gap between two consecutive model-turn requests, as the endpoint records their arrival
 * ({@link System#nanoTime()} after the body is read), is the harness's cost of one round; the first request of a turn
 * (process start-up) is not a round. Requests that are not model turns (no
 * shell tool in the request: titles, summaries, token counting) are answered and kept out of the gaps, and counted.
 * A model turn's body is kept until its turn ends, for the turn's prompt-cache figure ({@link PromptCache}), then
 * dropped.
 *
 * <p>Options ({@code --name=value}): {@code peers} ({@code claude,codex}), {@code peer-turns} (else {@code turns},
 * 5), {@code peer-warmup} (1), {@code rounds} (20), {@code peer-dir} (the npm prefix,
 * {@code ~/.cache/cohort-bench/peers}), {@code codex-sandbox} ({@code danger-full-access}, no approval prompts;
 * {@code workspace-write} runs Codex's bundled bubblewrap), {@code turn-timeout} (120 s), {@code keep-logs}. With
 * {@code --rounds=0} (the model answers {@code DONE} at once) a turn's CPU is its fixed cost, so the CPU of one round
 * is the difference to a 20-round turn divided by 20.
 */
public final class PeerHarnesses {

    /** The versions of the reference run (53 ms and 80 ms p50 on 2026-12-01): same versions, comparable runs. */
    static final String CLAUDE_VERSION = "2.1.332";
    static final String CODEX_VERSION = "0.171.0";
    /** A model slug Codex 0.171 has metadata for, so it runs with its ordinary tool set and no fallback warning. */
    static final String CODEX_MODEL = "gpt-5.5";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One tool under test: its npm package, how it is started for one turn, and the environment it needs offline. */
    enum Peer {
        CLAUDE("claude", "Claude Code " + CLAUDE_VERSION, "@anthropic-ai/claude-code", CLAUDE_VERSION, "claude",
                "Anthropic Messages"),
        CODEX("codex", "Codex CLI " + CODEX_VERSION, "@openai/codex", CODEX_VERSION, "codex", "OpenAI Responses");

        final String key;
        final String label;
        final String pkg;
        final String version;
        final String bin;
        /** The model wire it speaks to the endpoint. */
        final String wire;

        Peer(String key, String label, String pkg, String version, String bin, String wire) {
            this.key = key;
            this.label = label;
            this.pkg = pkg;
            this.version = version;
            this.bin = bin;
            this.wire = wire;
        }

        static Peer of(String key) {
            return Arrays.stream(values()).filter(p -> p.key.equals(key.trim())).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("unknown peer " + key + " (claude, codex)"));
        }
    }

    /**
     * One harness's figures: its round gaps (ms), the requests that were not model turns, why it has none, its
     * prompt-cache figure ({@link PromptCache}), the model wire it spoke, and each measured turn's process start → first
     * model request (ms; none for Cohort, whose services outlive a turn).
     */
    record Result(String harness, double[] gaps, Map<String, Integer> sideRequests, String failure, PromptCache.Tally cache,
            String wire, double[] startupMs) {

        Result(String harness, double[] gaps, Map<String, Integer> sideRequests, String failure, PromptCache.Tally cache,
                String wire) {
            this(harness, gaps, sideRequests, failure, cache, wire, new double[0]);
        }

        static Result failed(String harness, String why) {
            return new Result(harness, new double[0], Map.of(), why, null, null);
        }
    }

    private final List<Peer> peers;
    private final int turns;
    private final int warmup;
    private final int rounds;
    private final Path dir;
    private final String codexSandbox;
    private final long turnTimeoutSeconds;
    private final boolean keepLogs;

    PeerHarnesses(Map<String, String> opts) {
        String list = opts.getOrDefault("peers", "claude,codex");
        this.peers = list.isBlank() || list.equals("none") ? List.of()
                : Arrays.stream(list.split(",")).filter(s -> !s.isBlank()).map(Peer::of).distinct().toList();
        this.turns = Integer.parseInt(opts.getOrDefault("peer-turns", opts.getOrDefault("turns", "5")));
        this.warmup = Integer.parseInt(opts.getOrDefault("peer-warmup", "1"));
        this.rounds = Integer.parseInt(opts.getOrDefault("rounds", "20"));
        String peerDir = opts.getOrDefault("peer-dir", "~/.cache/cohort-bench/peers");
        this.dir = Path.of(peerDir.startsWith("~/") ? System.getProperty("user.home") + peerDir.substring(1) : peerDir)
                .toAbsolutePath().normalize();
        this.codexSandbox = opts.getOrDefault("codex-sandbox", "danger-full-access");
        this.turnTimeoutSeconds = Long.parseLong(opts.getOrDefault("turn-timeout", "120"));
        this.keepLogs = Boolean.parseBoolean(opts.getOrDefault("keep-logs", "false"));
        // rounds = 0 (only DONE) measures a turn's fixed cost: CPU per round = (CPU at 20 rounds - CPU at 0) / 20
        if (turns < 1 || rounds < 0 || warmup < 0) {
            throw new IllegalArgumentException("peer turns must be 1 or more, rounds and peer warm-up 0 or more");
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = options(args);
        List<Result> results = new PeerHarnesses(opts).run();
        printTable(null, results);
    }

    static Map<String, String> options(String[] args) {
        Map<String, String> opts = new LinkedHashMap<>();
        for (String a : args) {
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("options are --name=value, not " + a);
            }
            int eq = a.indexOf('=');
            opts.put(eq < 0 ? a.substring(2) : a.substring(2, eq), eq < 0 ? "true" : a.substring(eq + 1));
        }
        return opts;
    }

    // ------------------------------------------------------------------------------------------------ the run

    /** Installs what is missing, then runs each peer's turns; a peer that cannot run gets a failed result. */
    List<Result> run() throws Exception {
        try (Session session = open()) {
            session.warmUp();
            for (int t = 1; t <= turns; t++) {
                session.turn(t);
            }
            return session.results();
        }
    }

    /**
     * Installs what is missing, starts the model endpoint and prepares each peer's directories; the turns are then run
     * by the caller ({@link #run()}, or {@link RoundBenchmark} between its own turns). A session whose install failed
     * runs no turns and reports why.
     */
    Session open() throws IOException, InterruptedException {
        if (peers.isEmpty()) {
            return new Session(null, null, List.of());
        }
        System.out.printf("[peers] %s, %d cores, load average %s; %s; %d warm-up + %d measured turns x %d rounds each%n",
                Instant.now(), Runtime.getRuntime().availableProcessors(), RoundBenchmark.load(),
                peers.stream().map(p -> p.label).toList(), warmup, turns, rounds);
        String missing = install();
        if (missing != null) {
            System.out.println("[peers] skipped: " + missing);
            List<PeerRun> failed = new ArrayList<>();
            for (Peer p : peers) {
                failed.add(new PeerRun(p, missing));
            }
            return new Session(null, null, failed);
        }
        Path runDir = Files.createDirectories(dir.getParent().resolve("runs")).resolve("run-" + System.currentTimeMillis());
        Files.createDirectories(runDir);
        PeerModelServer model = new PeerModelServer(rounds);
        System.out.printf("[peers] zero-latency model endpoint on %s (Anthropic Messages + OpenAI Responses), run dir %s%n",
                model.baseUrl(), runDir);
        List<PeerRun> runs = new ArrayList<>();
        for (Peer p : peers) {
            runs.add(new PeerRun(p, Files.createDirectories(runDir.resolve(p.key))));
        }
        return new Session(model, runDir, runs);
    }

    /** The peers' endpoint and runs; each turn runs every peer once, in turns (a change of load hits them alike). */
    final class Session implements AutoCloseable {
        private final PeerModelServer model;
        private final Path runDir;
        private final List<PeerRun> runs;

        private Session(PeerModelServer model, Path runDir, List<PeerRun> runs) {
            this.model = model;
            this.runDir = runDir;
            this.runs = runs;
        }

        /** The warm-up turns ({@code peer-warmup}). */
        void warmUp() {
            for (int t = -warmup + 1; t <= 0; t++) {
                turn(t);
            }
        }

        /** Measured turn t (1-based): one fresh process of each peer still running. */
        void turn(int t) {
            for (PeerRun r : runs) {
                if (r.failure == null) {
                    r.turn(t, model);
                }
            }
        }

        List<Result> results() {
            return runs.stream().map(PeerRun::result).toList();
        }

        @Override
        public void close() {
            if (model != null) {
                model.close();
            }
            if (runDir != null && keepLogs) {
                System.out.println("[peers] logs kept in " + runDir);
            } else if (runDir != null) {
                delete(runDir);
            }
        }
    }

    /** One peer's run: its directories and the figures of its measured turns; a failure ends its turns, not the others'. */
    private final class PeerRun {
        final Peer peer;
        final Path home;
        final Path cwd;
        final List<double[]> measured = new ArrayList<>();
        final Map<String, Integer> side = new TreeMap<>();
        final List<Double> cpu = new ArrayList<>();
        final List<Double> startup = new ArrayList<>();
        /** The measured turns' prompt-cache figure. */
        final PromptCache.Tally cache = new PromptCache.Tally();
        String failure;

        /** A peer that cannot run (its install failed). */
        PeerRun(Peer peer, String failure) {
            this.peer = peer;
            this.home = null;
            this.cwd = null;
            this.failure = failure;
        }

        PeerRun(Peer peer, Path home) {
            this.peer = peer;
            this.home = home;
            this.cwd = home.resolve("project");
            try {
                Files.createDirectories(cwd);
                exec(List.of("git", "init", "-q", cwd.toString()), cwd);
                String version = exec(List.of(binary(peer).toString(), "--version"), cwd).trim();
                System.out.printf("[peers] %s: %s (%s)%n", peer.label, version, binary(peer));
            } catch (Exception e) {
                fail(e);
            }
        }

        /** Turn t (warm-up when t <= 0); a failure is kept and reported. */
        void turn(int t, PeerModelServer model) {
            String label = t <= 0 ? "warm-up " + (t + warmup) : "measured " + t;
            try {
                PeerModelServer.Turn turn = PeerHarnesses.this.turn(peer, model, home, cwd, label);
                double[] gaps = turn.gaps();
                if (t == 1 && rounds > 0) {
                    System.out.printf("[peers] %s: the tool result of `true %d` as the model got it: %s%n", peer.label, rounds,
                            JSON.writeValueAsString(turn.rounds().getLast().lastResult()));
                }
                if (t > 0) {
                    // measured between turns, the bodies then dropped: the endpoint holds no turn's bodies after it
                    cache.addTurn(turn.rounds().stream().map(a -> PromptCache.Request.of(a.wire(), a.body(), null)).toList());
                    measured.add(gaps);
                    cpu.add((double) turn.cpuMs());
                    startup.add(turn.startupMs());
                    turn.side().forEach(a -> side.merge(a.what(), 1, Integer::sum));
                }
                System.out.printf("[peers] %s %s turn: round gap p50 %.1f ms p90 %.1f ms; process start -> first request %.0f ms, "
                        + "last request -> exit %.0f ms; CPU %d ms; %d other request(s)%s (load %s)%n", peer.label, label,
                        RoundBenchmark.pct(gaps, 50), RoundBenchmark.pct(gaps, 90), turn.startupMs(), turn.exitMs(), turn.cpuMs(),
                        turn.side().size(), turn.side().isEmpty() ? "" : " " + turn.side().stream().map(PeerModelServer.Arrival::what).toList(),
                        RoundBenchmark.load());
                model.dropBodies();
            } catch (Exception e) {
                fail(e);
            }
        }

        private void fail(Exception e) {
            failure = e.getMessage() == null ? e.toString() : e.getMessage();
            System.out.printf("[peers] %s failed: %s%n", peer.label, failure);
        }

        Result result() {
            if (failure != null) {
                return Result.failed(peer.label, failure);
            }
            double[] all = measured.stream().flatMapToDouble(Arrays::stream).toArray();
            System.out.printf("[peers] %s over %d measured turns: round gap p50 %.1f ms p90 %.1f ms p99 %.1f ms mean %.1f ms; "
                    + "process start -> first request p50 %.0f ms; CPU per turn (process tree, start-up included) mean %.0f ms%n",
                    peer.label, measured.size(), RoundBenchmark.pct(all, 50), RoundBenchmark.pct(all, 90), RoundBenchmark.pct(all, 99),
                    Arrays.stream(all).average().orElse(0), RoundBenchmark.pct(startup.stream().mapToDouble(d -> d).toArray(), 50),
                    cpu.stream().mapToDouble(d -> d).average().orElse(0));
            System.out.printf("[peers] %s PROMPT CACHE (%s): %s%n", peer.label, peer.wire, cache.describe());
            System.out.printf("[peers] %s: the round whose prompt shared the least with the round before: %s%n", peer.label,
                    cache.lowestAt());
            return new Result(peer.label, all, side, null, cache, peer.wire, startup.stream().mapToDouble(d -> d).toArray());
        }
    }

    /** One turn: a fresh process, {@code rounds} shell calls and DONE; its model-turn requests in arrival order. */
    private PeerModelServer.Turn turn(Peer peer, PeerModelServer model, Path home, Path cwd, String label) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(binary(peer).toString());
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("HOME", Files.createDirectories(home.resolve("home")).toString()); // no user config leaks in
        env.put("TERM", "dumb");
        env.put("LANG", "C.UTF-8");
        String prompt = "Round benchmark (" + label + "): run each command the model asks for.";
        switch (peer) {
            case CLAUDE -> {
                cmd.addAll(List.of("-p", prompt, "--dangerously-skip-permissions"));
                env.put("ANTHROPIC_BASE_URL", model.baseUrl());
                env.put("ANTHROPIC_API_KEY", "sk-ant-bench-0123456789");
                // offline: no telemetry, error reports, update checks, feature-flag fetches or other non-essential calls
                env.put("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
                env.put("DISABLE_AUTOUPDATER", "1");
                env.put("DISABLE_UPDATES", "1");
                env.put("DISABLE_TELEMETRY", "1");
                env.put("DISABLE_ERROR_REPORTING", "1");
                // the bench runs as root on a throwaway machine: Claude Code refuses skip-permissions as root otherwise
                env.put("IS_SANDBOX", "1");
            }
            case CODEX -> {
                Path codexHome = Files.createDirectories(home.resolve("codex-home"));
                Files.writeString(codexHome.resolve("config.toml"), codexConfig(model.baseUrl()));
                cmd.addAll(List.of("exec", "--skip-git-repo-check", "-m", CODEX_MODEL, "-s", codexSandbox, prompt));
                env.put("CODEX_HOME", codexHome.toString());
                env.put("COHORT_BENCH_API_KEY", "sk-bench-0123456789");
            }
        }
        Path log = home.resolve(peer.key + "-" + label.replace(' ', '-') + ".log");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().clear();
        pb.environment().putAll(env);
        int from = model.arrivals().size();
        long cpu0 = reapedChildrenTicks();
        long start = System.nanoTime();
        Process p = pb.start();
        try {
            if (!p.waitFor(turnTimeoutSeconds, TimeUnit.SECONDS)) {
                throw new IllegalStateException(peer.label + " " + label + " still running after " + turnTimeoutSeconds
                        + " s; its output:\n" + tail(log));
            }
        } finally {
            if (p.isAlive()) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
        long end = System.nanoTime();
        long cpuMs = (reapedChildrenTicks() - cpu0) * 10; // ticks of 1/100 s
        if (p.exitValue() != 0) {
            throw new IllegalStateException(peer.label + " " + label + " exited " + p.exitValue() + ":\n" + tail(log));
        }
        List<PeerModelServer.Arrival> arrivals = model.arrivals().subList(from, model.arrivals().size());
        PeerModelServer.Turn turn = new PeerModelServer.Turn(List.copyOf(arrivals), start, end, cpuMs);
        turn.check(rounds, peer.label + " " + label, log);
        return turn;
    }

    /**
     * Codex's configuration for the local endpoint: a custom provider on the Responses API (the wire Codex 0.171 speaks
     * to providers; its key from an env var), no approval prompts, no update check, no analytics.
     */
    private String codexConfig(String baseUrl) {
        return """
                model = "%s"
                model_provider = "cohort-bench"
                approval_policy = "never"
                sandbox_mode = "%s"
                check_for_update_on_startup = false

                [model_providers.cohort-bench]
                name = "cohort-bench"
                base_url = "%s/v1"
                env_key = "COHORT_BENCH_API_KEY"
                wire_api = "responses"

                [analytics]
                enabled = false
                """.formatted(CODEX_MODEL, codexSandbox, baseUrl);
    }

    // ------------------------------------------------------------------------------------------------ installing

    private Path binary(Peer p) {
        return dir.resolve("node_modules/.bin").resolve(p.bin);
    }

    private boolean installed(Peer p) {
        try {
            JsonNode pkg = JSON.readTree(dir.resolve("node_modules").resolve(p.pkg).resolve("package.json").toFile());
            return p.version.equals(pkg.path("version").asText()) && Files.isExecutable(binary(p));
        } catch (IOException e) {
            return false;
        }
    }

    /** Runs {@code npm i --prefix DIR} for the pinned versions that are missing; null when all are there, else why not. */
    private String install() throws InterruptedException {
        List<String> specs = peers.stream().filter(p -> !installed(p)).map(p -> p.pkg + "@" + p.version).toList();
        if (specs.isEmpty()) {
            return null;
        }
        System.out.printf("[peers] installing %s into %s (npm)%n", specs, dir);
        try {
            Files.createDirectories(dir);
            List<String> cmd = new ArrayList<>(List.of("npm", "i", "--prefix", dir.toString(), "--no-audit", "--no-fund"));
            cmd.addAll(specs);
            Path log = dir.resolve("npm-install.log");
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                return "npm install did not finish in 10 minutes (" + log + ")";
            }
            if (p.exitValue() != 0) {
                return "npm install failed (exit " + p.exitValue() + "):\n" + tail(log);
            }
        } catch (IOException e) {
            return "npm is not available (" + e.getMessage() + "); install Node.js and npm, or run with --peers=none";
        }
        List<String> still = peers.stream().filter(p -> !installed(p)).map(p -> p.pkg + "@" + p.version).toList();
        return still.isEmpty() ? null : "npm finished but " + still + " is not installed in " + dir;
    }

    /**
     * CPU ticks of this JVM's reaped children ({@code cutime + cstime} of {@code /proc/self/stat}): a child's whole tree
     * once it is waited for (its own reaped descendants included); 0 where there is no /proc.
     */
    private static long reapedChildrenTicks() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[13]) + Long.parseLong(f[14]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static String exec(List<String> cmd, Path cwd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        String out;
        try (InputStream in = p.getInputStream()) {
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
        }
        return out;
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no output)";
        }
    }

    private static void delete(Path root) {
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // best effort
        }
    }

    // ------------------------------------------------------------------------------------------------ the table

    /**
     * The side-by-side table: each harness's round gap p50/p90/p99 and, when Cohort ran in the same invocation,
     * Cohort's p50 divided by that harness's p50 (the target: at most 1/3 of Claude Code's).
     */
    static void printTable(Result cohort, List<Result> peers) {
        if (peers.isEmpty()) {
            return;
        }
        double[] cohortGaps = cohort == null ? null : cohort.gaps();
        System.out.println("[round-bench] side by side, round gap (ms)          p50      p90      p99   rounds   Cohort p50 / this p50");
        if (cohortGaps != null) {
            System.out.printf("    %-44s %7.1f  %7.1f  %7.1f   %6d   %s%n", "Cohort (lead-service, this run)",
                    RoundBenchmark.pct(cohortGaps, 50), RoundBenchmark.pct(cohortGaps, 90), RoundBenchmark.pct(cohortGaps, 99),
                    cohortGaps.length, "1.00");
        }
        for (Result r : peers) {
            if (r.failure() != null) {
                System.out.printf("    %-44s not run: %s%n", r.harness(), r.failure().lines().findFirst().orElse(""));
                continue;
            }
            String ratio = cohortGaps == null ? "(Cohort not run)"
                    : String.format("%.2f%s", RoundBenchmark.pct(cohortGaps, 50) / RoundBenchmark.pct(r.gaps(), 50),
                            r.harness().startsWith("Claude") ? " (target <= 0.33)" : "");
            System.out.printf("    %-44s %7.1f  %7.1f  %7.1f   %6d   %s%n", r.harness(), RoundBenchmark.pct(r.gaps(), 50),
                    RoundBenchmark.pct(r.gaps(), 90), RoundBenchmark.pct(r.gaps(), 99), r.gaps().length, ratio);
        }
        peers.stream().filter(r -> r.failure() == null && r.gaps().length > 0).reduce((a, b) -> a).ifPresent(first -> {
            for (Result r : peers) {
                if (r != first && r.failure() == null) {
                    System.out.printf("    %s p50 / %s p50: %.2f%n", r.harness(), first.harness(),
                            RoundBenchmark.pct(r.gaps(), 50) / RoundBenchmark.pct(first.gaps(), 50));
                }
            }
        });
        for (Result r : peers) {
            if (!r.sideRequests().isEmpty()) {
                System.out.printf("    %s also sent, over the measured turns (answered, not in the gaps): %s%n", r.harness(),
                        r.sideRequests());
            }
        }
        printCacheTable(cohort, peers);
    }

    /**
     * The prompt-cache table ({@link PromptCache}): per round, the input tokens (the prompt's characters / 4), the share
     * of them the previous request's prompt began with (all rounds, and the lowest round), how many rounds did not
     * extend the round before, the raw bodies' byte-identical prefix, and the share the model server reported as cache
     * reads.
     */
    static void printCacheTable(Result cohort, List<Result> peers) {
        List<Result> all = new ArrayList<>();
        if (cohort != null && cohort.cache() != null) {
            all.add(cohort);
        }
        peers.stream().filter(r -> r.failure() == null && r.cache() != null).forEach(all::add);
        if (all.isEmpty()) {
            return;
        }
        System.out.println("[round-bench] prompt cache per round, tokens = chars/4      wire                     input  cacheable"
                + "   share  lowest  not extending  raw-body prefix  reported cache reads");
        for (Result r : all) {
            PromptCache.Tally c = r.cache();
            System.out.printf("    %-44s %-24s %6.0f  %9.0f  %5.1f %%  %5.1f %%  %5d of %-4d  %8.1f %%       %s%n", r.harness(),
                    r.wire(), c.inputTokensPerRound(), c.cacheableTokensPerRound(), 100 * c.share(), 100 * c.lowestShare(),
                    c.broken(), c.rounds(), 100 * c.bodyShare(),
                    Double.isNaN(c.reportedShare()) ? "-" : String.format("%.1f %%", 100 * c.reportedShare()));
        }
    }

    // ------------------------------------------------------------------------------------------------ the model

    /**
     * A zero-latency scripted model on 127.0.0.1 speaking the two wire formats: Anthropic Messages
     * ({@code POST /v1/messages}, streamed as SSE when asked, as Claude Code does; {@code /v1/messages/count_tokens})
     * and the OpenAI Responses API ({@code POST /v1/responses}, SSE, as Codex does with a custom provider). Stateless:
     * the answer follows from the request, so a retried request gets the same answer. A request offering the shell tool
     * ({@code Bash}, {@code exec_command}) is a model turn: with k tool results in its conversation it answers the
     * call {@code true k+1} while k is below the round count, then {@code DONE}. Anything else (titles, summaries,
     * token counts) gets a short answer and is recorded as a side request.
     */
    static final class PeerModelServer implements AutoCloseable {

        /**
         * One request as it arrived: nanoTime after its body was read, whether it was a model turn, the number of tool
         * results in its conversation and the last one's text (proof the command ran), what it was.
         */
        record Arrival(long nanos, boolean round, int results, String lastResult, String what, PromptCache.Wire wire, byte[] body) {

            /** A request whose body is not kept (not a model turn). */
            Arrival(long nanos, boolean round, int results, String lastResult, String what) {
                this(nanos, round, results, lastResult, what, null, null);
            }

            /** This arrival without its body, once the turn's prompt-cache figure is taken. */
            Arrival withoutBody() {
                return body == null ? this : new Arrival(nanos, round, results, lastResult, what, wire, null);
            }
        }

        /**
         * One turn's requests, its process's start and end (nanoTime) and the CPU time of the whole process tree
         * (start-up included), in ms.
         */
        record Turn(List<Arrival> arrivals, long start, long end, long cpuMs) {

            List<Arrival> rounds() {
                return arrivals.stream().filter(Arrival::round).sorted(Comparator.comparingLong(Arrival::nanos)).toList();
            }

            List<Arrival> side() {
                return arrivals.stream().filter(a -> !a.round()).toList();
            }

            /** Round i's gap: model-turn request i+1's arrival − request i's, in ms (the first request is no round). */
            double[] gaps() {
                List<Arrival> r = rounds();
                double[] g = new double[r.size() - 1];
                for (int i = 0; i + 1 < r.size(); i++) {
                    g[i] = (r.get(i + 1).nanos() - r.get(i).nanos()) / 1e6;
                }
                return g;
            }

            double startupMs() {
                return (rounds().getFirst().nanos() - start) / 1e6;
            }

            double exitMs() {
                return (end - rounds().getLast().nanos()) / 1e6;
            }

            /** Exactly rounds + 1 model-turn requests carrying 0, 1, …, rounds tool results, in that order. */
            void check(int rounds, String label, Path log) {
                List<Arrival> r = rounds();
                List<Integer> seen = r.stream().map(Arrival::results).toList();
                List<Integer> want = IntStream.rangeClosed(0, rounds).boxed().toList();
                if (!seen.equals(want)) {
                    throw new IllegalStateException(label + ": expected model turns with " + want + " tool results, got " + seen
                            + " (other requests: " + side().stream().map(Arrival::what).toList() + "); output:\n" + tail(log));
                }
            }
        }

        private final int rounds;
        private final HttpServer server;
        private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
        private final List<Arrival> arrivals = new CopyOnWriteArrayList<>();
        /**
         * Each answer's own id, as the APIs give them: with one id for every answer, Claude Code took a turn's answers
         * for parts of one message and sent all its calls in one assistant message and all their results in one user
         * message, so each round inserted its call before the earlier rounds' results.
         */
        private final AtomicLong answerIds = new AtomicLong();

        PeerModelServer(int rounds) throws IOException {
            this.rounds = rounds;
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
            server.setExecutor(executor);
            server.createContext("/", this::handle);
            server.start();
        }

        String baseUrl() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        List<Arrival> arrivals() {
            return arrivals;
        }

        /** Forgets the bodies of the requests so far (a turn's are measured once it ends). */
        void dropBodies() {
            arrivals.replaceAll(Arrival::withoutBody);
        }

        private void handle(HttpExchange ex) throws IOException {
            try (ex) {
                byte[] raw;
                try (InputStream in = ex.getRequestBody()) {
                    raw = in.readAllBytes();
                }
                String encoding = ex.getRequestHeaders().getFirst("Content-Encoding");
                if ("gzip".equalsIgnoreCase(encoding)) {
                    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(raw))) {
                        raw = in.readAllBytes();
                    }
                } else if (encoding != null && !encoding.equalsIgnoreCase("identity")) {
                    arrivals.add(new Arrival(System.nanoTime(), false, -1, null, "unreadable body, Content-Encoding " + encoding));
                    send(ex, 415, "application/json", "{\"error\":{\"message\":\"Content-Encoding " + encoding + " not supported\"}}");
                    return;
                }
                JsonNode body = raw.length == 0 ? JSON.createObjectNode() : JSON.readTree(raw);
                long arrived = System.nanoTime();
                String path = ex.getRequestURI().getPath();
                String method = ex.getRequestMethod();
                if (method.equals("POST") && path.endsWith("/v1/messages/count_tokens")) {
                    arrivals.add(new Arrival(arrived, false, -1, null, "count_tokens"));
                    send(ex, 200, "application/json", "{\"input_tokens\":" + raw.length / 4 + "}");
                } else if (method.equals("POST") && path.endsWith("/v1/messages")) {
                    messages(ex, body, raw, arrived);
                } else if (method.equals("POST") && path.endsWith("/v1/responses")) {
                    responses(ex, body, raw, arrived);
                } else {
                    arrivals.add(new Arrival(arrived, false, -1, null, method + " " + path + " (404)"));
                    send(ex, 404, "application/json", "{\"error\":{\"type\":\"not_found_error\",\"message\":\"not scripted\"}}");
                }
            } catch (RuntimeException | IOException e) {
                arrivals.add(new Arrival(System.nanoTime(), false, -1, null, "failed: " + e));
                throw e;
            }
        }

        // ---------------------------------------------------------------------------- Anthropic Messages (Claude Code)

        private void messages(HttpExchange ex, JsonNode req, byte[] raw, long arrived) throws IOException {
            boolean round = hasTool(req.path("tools"), "Bash");
            int results = 0;
            String lastResultId = null;
            String lastResult = null;
            for (JsonNode m : req.path("messages")) {
                for (JsonNode block : m.path("content")) {
                    if (block.path("type").asText().equals("tool_result")) {
                        results++;
                        lastResultId = block.path("tool_use_id").asText();
                        lastResult = text(block.path("content"));
                    }
                }
            }
            if (round && results > 0 && !("toolu_bench_" + results).equals(lastResultId)) {
                round = false; // not the conversation this server scripted: answered, but kept out of the rounds
            }
            List<ObjectNode> content = new ArrayList<>();
            String stop;
            if (round && results < rounds) {
                ObjectNode call = JSON.createObjectNode().put("type", "tool_use").put("id", "toolu_bench_" + (results + 1))
                        .put("name", "Bash");
                call.putObject("input").put("command", "true " + (results + 1));
                content.add(call);
                stop = "tool_use";
            } else {
                content.add(JSON.createObjectNode().put("type", "text").put("text", round ? "DONE" : "Round benchmark"));
                stop = "end_turn";
            }
            // a model turn keeps its body (a reference, no copy) for the prompt-cache figure, measured after the turn
            arrivals.add(new Arrival(arrived, round, results, lastResult, round ? "turn" : describe(req), PromptCache.Wire.MESSAGES,
                    round ? raw : null));
            String model = req.path("model").asText("claude");
            String id = "msg_bench_" + answerIds.incrementAndGet();
            if (!req.path("stream").asBoolean(false)) {
                ObjectNode msg = JSON.createObjectNode().put("id", id).put("type", "message").put("role", "assistant")
                        .put("model", model).put("stop_reason", stop).putNull("stop_sequence");
                msg.putArray("content").addAll(content);
                msg.putObject("usage").put("input_tokens", 10).put("output_tokens", 5);
                send(ex, 200, "application/json", JSON.writeValueAsString(msg));
                return;
            }
            StringBuilder sse = new StringBuilder();
            ObjectNode start = JSON.createObjectNode().put("type", "message_start");
            ObjectNode msg = start.putObject("message").put("id", id).put("type", "message").put("role", "assistant")
                    .put("model", model).putNull("stop_reason").putNull("stop_sequence");
            msg.putArray("content");
            msg.putObject("usage").put("input_tokens", 10).put("output_tokens", 1);
            event(sse, "message_start", start);
            for (int i = 0; i < content.size(); i++) {
                ObjectNode block = content.get(i);
                ObjectNode delta = JSON.createObjectNode();
                ObjectNode opened = block.deepCopy();
                if (block.path("type").asText().equals("tool_use")) {
                    opened.putObject("input");
                    delta.put("type", "input_json_delta").put("partial_json", JSON.writeValueAsString(block.get("input")));
                } else {
                    opened.put("text", "");
                    delta.put("type", "text_delta").put("text", block.path("text").asText());
                }
                ObjectNode cbs = JSON.createObjectNode().put("type", "content_block_start").put("index", i);
                cbs.set("content_block", opened);
                event(sse, "content_block_start", cbs);
                ObjectNode cbd = JSON.createObjectNode().put("type", "content_block_delta").put("index", i);
                cbd.set("delta", delta);
                event(sse, "content_block_delta", cbd);
                event(sse, "content_block_stop", JSON.createObjectNode().put("type", "content_block_stop").put("index", i));
            }
            ObjectNode md = JSON.createObjectNode().put("type", "message_delta");
            md.putObject("delta").put("stop_reason", stop).putNull("stop_sequence");
            md.putObject("usage").put("output_tokens", 5);
            event(sse, "message_delta", md);
            event(sse, "message_stop", JSON.createObjectNode().put("type", "message_stop"));
            send(ex, 200, "text/event-stream", sse.toString());
        }

        // ---------------------------------------------------------------------------- OpenAI Responses (Codex)

        private void responses(HttpExchange ex, JsonNode req, byte[] raw, long arrived) throws IOException {
            boolean round = hasTool(req.path("tools"), "exec_command");
            int results = 0;
            String lastResultId = null;
            String lastResult = null;
            for (JsonNode item : req.path("input")) {
                if (item.path("type").asText().equals("function_call_output")) {
                    results++;
                    lastResultId = item.path("call_id").asText();
                    lastResult = text(item.path("output"));
                }
            }
            if (round && results > 0 && !("call_bench_" + results).equals(lastResultId)) {
                round = false;
            }
            ObjectNode item;
            if (round && results < rounds) {
                item = JSON.createObjectNode().put("type", "function_call").put("id", "fc_bench_" + (results + 1))
                        .put("call_id", "call_bench_" + (results + 1)).put("name", "exec_command")
                        .put("arguments", "{\"cmd\":\"true " + (results + 1) + "\"}").put("status", "completed");
            } else {
                item = JSON.createObjectNode().put("type", "message").put("id", "msg_bench_" + answerIds.incrementAndGet())
                        .put("role", "assistant")
                        .put("status", "completed");
                item.putArray("content").addObject().put("type", "output_text").put("text", round ? "DONE" : "Round benchmark")
                        .putArray("annotations");
            }
            arrivals.add(new Arrival(arrived, round, results, lastResult, round ? "turn" : describe(req), PromptCache.Wire.RESPONSES,
                    round ? raw : null));
            StringBuilder sse = new StringBuilder();
            String responseId = "resp_bench_" + answerIds.incrementAndGet();
            ObjectNode created = JSON.createObjectNode().put("type", "response.created");
            created.putObject("response").put("id", responseId).put("status", "in_progress");
            event(sse, "response.created", created);
            ObjectNode added = JSON.createObjectNode().put("type", "response.output_item.added").put("output_index", 0);
            added.set("item", item);
            event(sse, "response.output_item.added", added);
            ObjectNode done = JSON.createObjectNode().put("type", "response.output_item.done").put("output_index", 0);
            done.set("item", item);
            event(sse, "response.output_item.done", done);
            ObjectNode completed = JSON.createObjectNode().put("type", "response.completed");
            ObjectNode resp = completed.putObject("response").put("id", responseId).put("status", "completed");
            resp.putArray("output").add(item);
            resp.putObject("usage").put("input_tokens", 10).put("output_tokens", 5).put("total_tokens", 15)
                    .putNull("input_tokens_details").putNull("output_tokens_details");
            event(sse, "response.completed", completed);
            send(ex, 200, "text/event-stream", sse.toString());
        }

        // ---------------------------------------------------------------------------- helpers

        private static boolean hasTool(JsonNode tools, String name) {
            for (JsonNode t : tools) {
                if (name.equals(t.path("name").asText())) {
                    return true;
                }
            }
            return false;
        }

        /** A tool result's text: a string, or the text of its content blocks. */
        private static String text(JsonNode content) {
            if (content.isTextual()) {
                return content.asText();
            }
            StringBuilder out = new StringBuilder();
            for (JsonNode block : content) {
                out.append(block.path("text").asText(block.isTextual() ? block.asText() : ""));
            }
            return out.length() > 0 || content.isMissingNode() ? out.toString() : content.toString();
        }

        /** A short description of a request that is not a model turn, for the report. */
        private static String describe(JsonNode req) {
            ArrayNode tools = req.path("tools").isArray() ? (ArrayNode) req.path("tools") : JSON.createArrayNode();
            String system = req.path("system").isArray() ? req.path("system").path(req.path("system").size() - 1).path("text").asText()
                    : req.path("system").asText(req.path("instructions").asText(""));
            system = system.replaceAll("\\s+", " ");
            return String.format("%s (%d tools, max_tokens %s, stream %s, system \"%s\")", req.path("model").asText("?"),
                    tools.size(), req.path("max_tokens").asText(req.path("max_output_tokens").asText("-")),
                    req.path("stream").asBoolean(false), system.length() > 60 ? system.substring(0, 60) + "…" : system);
        }

        private static void event(StringBuilder sse, String name, JsonNode data) throws IOException {
            sse.append("event: ").append(name).append("\ndata: ").append(JSON.writeValueAsString(data)).append("\n\n");
        }

        private static void send(HttpExchange ex, int status, String type, String body) throws IOException {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", type);
            ex.getResponseHeaders().set("request-id", "req_bench");
            ex.sendResponseHeaders(status, bytes.length);
            ex.getResponseBody().write(bytes);
        }

        @Override
        public void close() {
            server.stop(0);
            executor.shutdownNow();
        }
    }
}
