package dev.cohort.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cohort.cli.UpCommand;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.Topics;
import dev.cohort.core.toolrunner.ToolCallRequest;
import dev.cohort.core.toolrunner.ToolRunnerClient;
import dev.cohort.devstack.Devstack;
import dev.cohort.devstack.JitCpu;
import dev.cohort.devstack.model.RecordedRequest;
import dev.cohort.devstack.model.Scenario;
import dev.cohort.devstack.model.ScriptedModelServer;
import dev.cohort.devstack.Ports;
import dev.cohort.devstack.ProcessMemory;
import java.io.InputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The round benchmark: what one durable round of the lead costs, measured through {@code cohort up}'s
 * processes. Not a test (nothing runs it in {@code ./mvnw verify}); a main class, run as described in
 * {@code lead-service/README.md} ("Round benchmark").
 *
 * <p>Kafka, PostgreSQL and the scripted model run in this JVM ({@link Devstack}, as {@code cohort up} runs them); the
 * packaged tool-runner-service and lead-service run as child JVMs with {@code cohort up}'s environment and, by
 * default, its JVM flags ({@code -Xmx384m -XX:+UseSerialGC -XX:MaxTenuringThreshold=1}, {@code UpCommand.jvmFlags}, with
 * {@code COHORT_FAST_START} as {@code cohort up} reads it; {@code --jvm-flags} replaces them, {@code --jvm-extra} or
 * {@code COHORT_BENCH_JVM_EXTRA} adds to them), each in a session of its own as {@code cohort up} starts them ({@code UpCommand.sessionPrefix()}: {@code setsid}
 * where it exists; {@code --sessions=shared} starts them in this JVM's session instead, for comparison). Each turn is one prompt; the zero-latency model answers 20 distinct tool calls ({@code bash "true N"}) and
 * then {@code DONE}. The gap between two consecutive model requests, as the model server records their arrival, is
 * the harness's cost of one round. The lead's own events (read from its SSE stream, as {@code cohort send} does) split
 * each round into phases, all in ms after the model request arrived:
 * <ul>
 *   <li>reply: until {@code assistant_message}'s ts (the reply sent, parsed, appended and the state saved),</li>
 *   <li>pre-call: until {@code tool_call_started} (storing + publishing {@code assistant_message}),</li>
 *   <li>tool: until {@code tool_call_finished} (storing + publishing {@code tool_call_started}, the gates, hooks,
 *       the HTTP call),</li>
 *   <li>post-call: until the next model request arrives (storing + publishing {@code tool_call_finished}, the save,
 *       the inbox drain, prompt assembly, the HTTP request).</li>
 * </ul>
 * An event's ts is taken when the event is created, before it is stored and published.
 *
 * <p>Options ({@code --name=value}): {@code turns} (5), {@code rounds} (20), {@code warmup} (1 turn),
 * {@code settle} (0: off; N: after the warm-up turns, more warm-up turns until the three JVMs' JIT compiler threads use
 * at most N ms of CPU per second in each of the last two windows of 10 turns, the steady state of a long-running
 * service; at most {@code settle-max}, 1500, more turns),
 * {@code jvm-flags} (space-separated), {@code jvm-extra} (space-separated, appended; {@code {service}} in them becomes
 * the service's name), {@code cold} / {@code cold-runs} (the first turns after a fresh start instead,
 * {@link ColdStartBenchmark}), {@code jfr=DIR} (a JFR recording, {@code settings=profile}, of both service JVMs
 * over the measured turns only, via {@code jcmd}), {@code db-stats} (true: PostgreSQL transactions and row writes per
 * round, and one more untimed turn with {@code log_statement = all}: every statement per round), {@code statements}
 * (true; false skips that turn), {@code sandbox} (COHORT_SANDBOX, default {@code auto} like {@code cohort up}),
 * {@code home} (the repository, default the current directory), {@code model-delay-ms} (0: the zero-latency
 * model; N: the model waits N ms before each answer of a round, as a real one takes hundreds, and N is taken out of each
 * gap and of the reply phase, so the gaps are the harness's cost while the cores are not kept busy by back-to-back
 * rounds), {@code sessions} ({@code own}, as {@code cohort up}; {@code shared}), {@code provider} ({@code openai}: the lead
 * speaks chat completions, the default; {@code anthropic}: the Messages API), {@code keep-logs} (keep the run directory with the
 * service logs), {@code peers} ({@code none}; {@code claude,codex} runs the same bench on Claude Code and Codex CLI,
 * {@link PeerHarnesses}, and prints them side by side with Cohort's p50 as a ratio of each), {@code peers-order}
 * ({@code interleaved}: after each measured turn of Cohort one turn of each peer, while Cohort's services idle, so a
 * change of load hits all alike; the peers' warm-up turns, {@code peer-warmup}, run before the settle phase, so that
 * it also waits for this JVM's JIT of the peers' model endpoint; {@code after}: the peers' turns after Cohort's
 * services are stopped). It also prints the CPU time per round of each process (idle rate subtracted), the runner's
 * own bash timer and the mean of each of its bash phases over the measured turns
 * ({@code cohort.toolrunner.bash.phase}: request-to-service, journal-insert, to-process-start, process-run,
 * after-exit, ...), a direct call of the same bash on the runner, one awaited Kafka send, and the lead's TCP
 * connections to the runner and the model, and how busy the machine's cores were (all processes and the kernel's
 * threads, {@code /proc/stat}), and the input tokens per round with the share of them a provider's prompt cache could
 * serve ({@link PromptCache}, from the measured turns' bodies as the scripted model's tap handed them over).
 * Everything started is stopped by PID at the end.
 *
 * <p>The model server records a request's arrival after reading and parsing its body (well under a millisecond for
 * these bodies, the same for every request), so the gaps are not skewed by it.
 */
public final class RoundBenchmark {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKEN = "bench-api-token-0123456789abcdef0123456789abcdef";
    private static final String TEAM = "default";
    private static final String AGENT = "default/lead";
    private static final String PROBE_TOPIC = "bench.probe";
    private static final String MACHINE = "the machine (every process, the kernel's threads)";
    private static final String REAPED_BY_INIT = "reaped by PID 1 (orphaned sandbox processes)";

    private final Map<String, String> opts;
    private final int turns;
    private final int rounds;
    private final int warmup;
    /** Warm-up continues until the JVMs' JIT compiler threads use at most this many ms per second (0: off). */
    private final double settle;
    private final int settleMax;
    private final List<String> jvmFlags;
    /** What each service's command line starts with: {@code cohort up}'s {@code setsid}, or nothing ({@code --sessions=shared}). */
    private final List<String> sessionPrefix;
    /** How long the scripted model waits before each answer of a round ({@code model-delay-ms}); taken out of the gaps. */
    private final long modelDelayMs;
    private final Path jfrDir;
    private final boolean dbStats;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final List<Process> children = new CopyOnWriteArrayList<>();
    private Devstack stack;
    private Path runDir;
    private String leadUrl;
    private Process lead;
    private Process runner;
    private Path runnerLog;
    private Path runnerJar;
    private Path leadJar;
    /** The team's workspace, the services' logs and their temporary directory, in the run directory. */
    private Path ws;
    private Path logs;
    private Path tmp;
    /** What every service gets in its environment; the runner's adds its slow-call log ({@link #prepare}). */
    private Map<String, String> serviceEnv;
    private Map<String, String> runnerEnv;
    private int leadPort;
    private int runnerPort;
    /** How long {@link Devstack#start} took (the broker, PostgreSQL and the model), ms. */
    private double stackStartMs;
    /** The tool runner's management port: health and metrics. */
    private int runnerManagementPort;
    /** The lead's management port. */
    private int leadManagementPort;
    private long callIds;
    /** The measured turns' round gaps (ms), for the side-by-side table with the peers. */
    private double[] cohortGaps;
    /** The model wire the lead speaks ({@code provider}): {@code openai} (chat completions) or {@code anthropic}. */
    private final String provider;
    /** The measured turns' prompt-cache figure ({@link PromptCache}), for the side-by-side table. */
    private PromptCache.Tally cohortCache;
    /** The model requests and answers as they crossed the wire, while the measured turns run (the scripted model's tap). */
    private final ConcurrentLinkedQueue<ScriptedModelServer.Exchange> exchanges = new ConcurrentLinkedQueue<>();
    /** Whether the tap is on: only the measured turns keep their bodies, so the warm-up and settle turns hold none. */
    private volatile boolean tapping;
    /** The peers run between Cohort's measured turns ({@code peers-order=interleaved}), and their figures. */
    private PeerHarnesses.Session peers;
    private List<PeerHarnesses.Result> peerResults;
    /** Client ports seen on connections to the tool runner / the model (their count shows connection reuse). */
    private final Set<String> runnerClients = new TreeSet<>();
    private final Set<String> modelClients = new TreeSet<>();

    /**
     * Flags appended to the services' JVM flags when {@code --jvm-extra} is not given (e.g. {@code -XX:AOTCache=…}), so
     * that runs with and without them differ in the environment only; {@code {service}} in them becomes the service's
     * name ({@code tool-runner-service}, {@code lead-service}), for a file per service.
     */
    static final String JVM_EXTRA_ENV = "COHORT_BENCH_JVM_EXTRA";

    /** The placeholder in the extra JVM flags that {@link #startService} replaces with the service's name. */
    static final String SERVICE_PLACEHOLDER = "{service}";

    /**
     * The services' JVM flags: {@code cohort up}'s ({@link UpCommand#jvmFlags}, so {@code COHORT_FAST_START} counts as
     * there), or {@code --jvm-flags} instead of them; then {@code --jvm-extra}, else {@link #JVM_EXTRA_ENV}.
     */
    static List<String> jvmFlags(Map<String, String> opts, Map<String, String> env) {
        String flags = opts.get("jvm-flags");
        List<String> out = new ArrayList<>(flags == null ? UpCommand.jvmFlags(env.get("COHORT_FAST_START")) : words(flags));
        out.addAll(words(opts.getOrDefault("jvm-extra", env.getOrDefault(JVM_EXTRA_ENV, ""))));
        return List.copyOf(out);
    }

    /** Service {@code name}'s JVM flags: {@code flags} with {@link #SERVICE_PLACEHOLDER} replaced by the name. */
    static List<String> serviceFlags(List<String> flags, String name) {
        return flags.stream().map(f -> f.replace(SERVICE_PLACEHOLDER, name)).toList();
    }

    /** Space-separated words, none empty. */
    static List<String> words(String s) {
        return Arrays.stream(s.trim().split("\\s+")).filter(w -> !w.isEmpty()).toList();
    }

    RoundBenchmark(Map<String, String> opts) {
        this.opts = opts;
        this.turns = Integer.parseInt(opts.getOrDefault("turns", "5"));
        this.rounds = Integer.parseInt(opts.getOrDefault("rounds", "20"));
        this.warmup = Integer.parseInt(opts.getOrDefault("warmup", "1"));
        this.settle = Double.parseDouble(opts.getOrDefault("settle", "0"));
        this.settleMax = Integer.parseInt(opts.getOrDefault("settle-max", "1500"));
        this.jvmFlags = jvmFlags(opts, System.getenv());
        this.modelDelayMs = Long.parseLong(opts.getOrDefault("model-delay-ms", "0"));
        this.provider = opts.getOrDefault("provider", "openai");
        if (!List.of("openai", "anthropic").contains(provider)) {
            throw new IllegalArgumentException("provider is openai (chat completions) or anthropic (Messages)");
        }
        if (modelDelayMs < 0) {
            throw new IllegalArgumentException("model-delay-ms must be 0 or more");
        }
        if (modelDelayMs > 0 && !opts.getOrDefault("peers", "none").equals("none")) {
            throw new IllegalArgumentException("model-delay-ms delays Cohort's model only, the peers' answer at once: use it with --peers=none");
        }
        String sessions = opts.getOrDefault("sessions", "own");
        if (!List.of("own", "shared").contains(sessions)) {
            throw new IllegalArgumentException("sessions is own or shared");
        }
        this.sessionPrefix = sessions.equals("own") ? UpCommand.sessionPrefix() : List.of();
        this.jfrDir = opts.containsKey("jfr") ? Path.of(opts.get("jfr")).toAbsolutePath() : null;
        this.dbStats = Boolean.parseBoolean(opts.getOrDefault("db-stats", "true"));
        if (turns < 1 || rounds < 1 || warmup < 0 || settle < 0 || settleMax < 0) {
            throw new IllegalArgumentException("turns and rounds must be 1 or more, warmup 0 or more");
        }
        if (!List.of("interleaved", "after").contains(opts.getOrDefault("peers-order", "interleaved"))) {
            throw new IllegalArgumentException("peers-order is interleaved or after");
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = PeerHarnesses.options(args);
        if (opts.containsKey("cold") || opts.containsKey("cold-runs")) {
            ColdStartBenchmark.main(args);
            return;
        }
        RoundBenchmark b = new RoundBenchmark(opts);
        Thread hook = new Thread(b::stop, "round-bench-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            b.run();
        } finally {
            b.stop();
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        PeerHarnesses.Result cohort = new PeerHarnesses.Result("Cohort (lead-service, this run)", b.cohortGaps, Map.of(), null,
                b.cohortCache, b.wireName());
        if (b.peerResults != null) {
            PeerHarnesses.printTable(cohort, b.peerResults);
        } else if (!opts.getOrDefault("peers", "none").equals("none")) {
            // peers-order=after: once Cohort's services are stopped, so they do not compete with the peers' turns
            PeerHarnesses.printTable(cohort, new PeerHarnesses(opts).run());
        }
        System.exit(0); // the embedded broker's non-daemon threads
    }

    // ------------------------------------------------------------------------------------------------ the run

    /**
     * Everything before the services start: the jars, the run directory and workspace, Kafka, PostgreSQL and the
     * scripted model in this JVM ({@link Devstack}, as {@code cohort up} runs them), the ports and each service's
     * environment. {@code slowCallLog} turns on the runner's log of its calls of 10 ms or more (the tail's report).
     */
    private void prepare(boolean slowCallLog) throws Exception {
        Path home = Path.of(opts.getOrDefault("home", ".")).toAbsolutePath().normalize();
        runnerJar = home.resolve("tool-runner-service/target/quarkus-app/quarkus-run.jar");
        leadJar = home.resolve("lead-service/target/quarkus-app/quarkus-run.jar");
        for (Path jar : List.of(runnerJar, leadJar)) {
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException(jar + " is missing: ./mvnw -B package -DskipTests -pl tool-runner-service,lead-service -am");
            }
        }
        System.out.printf("[round-bench] %s, %d cores, load average %s; service JVM flags: %s; services started %s%n",
                Instant.now(), Runtime.getRuntime().availableProcessors(), load(), String.join(" ", jvmFlags),
                sessionPrefix.isEmpty() ? "in this JVM's session" : "each in its own session (" + sessionPrefix.getFirst() + ")");
        runDir = Files.createTempDirectory("cohort-round-bench-");
        ws = Files.createDirectories(runDir.resolve("workspace"));
        new ProcessBuilder("git", "init", "-q", ws.toString()).inheritIO().start().waitFor();
        List<String> topics = new ArrayList<>(Topics.ALL);
        topics.add(PROBE_TOPIC);
        long stack0 = System.nanoTime();
        stack = Devstack.start(Ports.free(), topics, 4, Ports.free(), 0);
        stackStartMs = (System.nanoTime() - stack0) / 1e6;
        runnerPort = Ports.free();
        runnerManagementPort = Ports.free();
        leadPort = Ports.free();
        leadManagementPort = Ports.free();
        leadUrl = "http://127.0.0.1:" + leadPort;
        Map<String, String> env = new LinkedHashMap<>(stack.serviceEnvironment());
        // what UpCommand gives every service (the teammate and scheduler URLs point nowhere: not used by this bench)
        env.put("QUARKUS_HTTP_HOST", "127.0.0.1");
        env.put("COHORT_API_TOKEN", TOKEN);
        env.put("COHORT_INTERNAL_TOKEN", "bench-internal-token-0123456789abcdef0123456789");
        env.put("COHORT_TOOL_RUNNER_TOKEN", "bench-runner-token-0123456789abcdef0123456789ab");
        env.put("COHORT_WORKSPACE_ROOT", ws.toString());
        env.put("COHORT_SANDBOX", opts.getOrDefault("sandbox", System.getenv().getOrDefault("COHORT_SANDBOX", "auto")));
        // team (default): a team's commands run in its long-lived sandbox; call: a sandbox per command, as before
        env.put("COHORT_TOOL_RUNNER_SANDBOX_SCOPE", opts.getOrDefault("sandbox-scope", "team"));
        env.put("COHORT_STATE_DIR", runDir.resolve("state").toString());
        env.put("COHORT_LEAD_URL", leadUrl);
        env.put("COHORT_TEAMMATE_URL", "http://127.0.0.1:" + Ports.free());
        env.put("COHORT_SCHEDULER_URL", "http://127.0.0.1:" + Ports.free());
        env.put("COHORT_TOOL_RUNNER_URL", "http://127.0.0.1:" + runnerPort);
        env.put("OPENAI_BASE_URL", stack.model().baseUrl());
        env.put("OPENAI_API_KEY", "sk-scripted");
        env.put("MODEL_ID", ScriptedModelServer.DEFAULT_MODEL);
        if (provider.equals("anthropic")) {
            // Anthropic's Messages API, which the scripted model answers on POST /v1/messages with its cache figures
            env.put("COHORT_LLM_PROVIDER", "anthropic");
            env.put("ANTHROPIC_BASE_URL", stack.model().baseUrl());
            env.put("ANTHROPIC_API_KEY", "sk-ant-scripted");
        }
        // the scripted model's usage adds up over hundreds of turns: no daily token budget stops the benchmark
        env.put("COHORT_ENGINE_BUDGETS_TOKENS_PER_TEAM_PER_DAY", "0");
        serviceEnv = env;
        logs = Files.createDirectories(runDir.resolve("logs"));
        runnerLog = logs.resolve("tool-runner-service.log");
        runnerEnv = new LinkedHashMap<>(env);
        if (slowCallLog) {
            // the runner's calls of 10 ms or more, each with its phases (CallPhases), for the tail's report
            runnerEnv.put("QUARKUS_LOG_CATEGORY__DEV_COHORT_TOOLRUNNER_SLOWCALLS__LEVEL", "DEBUG");
        }
        tmp = Files.createDirectories(runDir.resolve("tmp"));
    }

    /**
     * Start-up of a fresh start: the broker, PostgreSQL and the model in this JVM ({@code stackMs}), then the two
     * services started at once, each one's ms from its process start until it was ready, and until both were.
     */
    record Startup(double stackMs, double runnerMs, double leadMs, double allMs) {
    }

    /**
     * A fresh start, as {@code cohort up} starts its children: the tool runner and the lead as new JVMs at the same
     * time (after the broker, PostgreSQL and the model are up), then their {@code /q/health/ready} polled every
     * {@link #READY_POLL_MS} ms until both answer 200. The runner's slow-call log stays off, as in {@code cohort up}.
     */
    Startup startFresh() throws Exception {
        prepare(false);
        long t0 = System.nanoTime();
        runner = startService("tool-runner-service", runnerJar, runnerPort, runnerManagementPort, runnerEnv, ws, logs, tmp);
        long leadStart = System.nanoTime();
        lead = startService("lead-service", leadJar, leadPort, leadManagementPort, serviceEnv, ws, logs, tmp);
        long deadline = t0 + TimeUnit.SECONDS.toNanos(180);
        long runnerReady = 0;
        long leadReady = 0;
        while (runnerReady == 0 || leadReady == 0) {
            for (var c : List.of(Map.entry("tool-runner-service", runner), Map.entry("lead-service", lead))) {
                if (!c.getValue().isAlive()) {
                    throw new IllegalStateException(c.getKey() + " exited (" + c.getValue().exitValue() + "); see "
                            + logs.resolve(c.getKey() + ".log") + ":\n" + tail(logs.resolve(c.getKey() + ".log")));
                }
            }
            if (runnerReady == 0 && ready(runnerManagementPort)) {
                runnerReady = System.nanoTime();
            }
            if (leadReady == 0 && ready(leadManagementPort)) {
                leadReady = System.nanoTime();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("not ready after 180 s:\n" + tail(logs.resolve("lead-service.log")));
            }
            Thread.sleep(READY_POLL_MS);
        }
        Startup s = new Startup(stackStartMs, (runnerReady - t0) / 1e6, (leadReady - leadStart) / 1e6, (Math.max(runnerReady, leadReady) - t0) / 1e6);
        System.out.printf("[round-bench] ready: tool runner %.0f ms, lead %.0f ms after their start, both %.0f ms; lead pid %d, "
                + "tool runner pid %d, sandbox %s, model wire %s%n", s.runnerMs(), s.leadMs(), s.allMs(), lead.pid(), runner.pid(),
                sandbox(runnerManagementPort), wireName());
        return s;
    }

    /** How often {@link #startFresh} asks the services whether they are ready: fine enough for start-ups of seconds. */
    private static final long READY_POLL_MS = 50;

    /** Whether the service's {@code /q/health/ready} on this management port answers 200 now. */
    private boolean ready(int managementPort) throws InterruptedException {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/q/health/ready"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false; // not listening yet
        }
    }

    /** The lead's and the runner's processes, once started. */
    Process leadProcess() {
        return lead;
    }

    Process runnerProcess() {
        return runner;
    }

    int leadManagementPort() {
        return leadManagementPort;
    }

    int runnerManagementPort() {
        return runnerManagementPort;
    }

    /** The JVM flags every service gets ({@code {service}} not yet replaced). */
    List<String> jvmFlags() {
        return jvmFlags;
    }

    void run() throws Exception {
        prepare(true);
        runner = startService("tool-runner-service", runnerJar, runnerPort, runnerManagementPort, runnerEnv, ws, logs, tmp);
        awaitReady("tool-runner-service", runner, runnerManagementPort, logs);
        lead = startService("lead-service", leadJar, leadPort, leadManagementPort, serviceEnv, ws, logs, tmp);
        awaitReady("lead-service", lead, leadManagementPort, logs);
        System.out.printf("[round-bench] ready: lead pid %d, tool runner pid %d, sandbox %s, model wire %s, logs %s%n", lead.pid(),
                runner.pid(), sandbox(runnerManagementPort), wireName(), logs);

        for (int w = 1; w <= warmup; w++) {
            Turn t = turn("warm-up " + w);
            runnerTimers();
            System.out.printf("[round-bench] warm-up turn %d: round gap p50 %.1f ms%n", w, pct(t.gaps(), 50));
        }
        boolean interleaved = !opts.getOrDefault("peers", "none").equals("none")
                && opts.getOrDefault("peers-order", "interleaved").equals("interleaved");
        if (interleaved) {
            // before the settle phase, so that it also waits for this JVM's JIT of the peers' model endpoint
            peers = new PeerHarnesses(opts).open();
            peers.warmUp();
        }
        if (settle > 0) {
            settleJit();
        }
        // the services' CPU while no turn runs (pollers, consumers, timers), subtracted from the measured turns' CPU
        Map<String, Long> idle0 = cpu();
        long idleT0 = System.nanoTime();
        Thread.sleep(5000);
        Map<String, Long> idle1 = cpu();
        double idleSeconds = (System.nanoTime() - idleT0) / 1e9;
        DbCounters before = dbStats ? settledCounters() : null;
        double idleRate = dbStats ? idleTransactionRate(before) : 0;
        // idle seconds let pool threads time out (code on their exit path gets deoptimised) and the measured turns paid
        // for it (PrintCompilation, 2026-12-03): a few more turns before the measured ones
        for (int w = 1; w <= REWARM_TURNS; w++) {
            turn("re-warm " + w);
            runnerTimers();
        }
        before = dbStats ? settledCounters() : null;
        if (jfrDir != null) {
            Files.createDirectories(jfrDir);
            // every socket read/write and park, not only those over profile's 10-20 ms: the round's waits are short
            String[] waits = {"jdk.SocketRead#threshold=0ms", "jdk.SocketWrite#threshold=0ms", "jdk.ThreadPark#threshold=0ms",
                "jdk.JavaMonitorEnter#threshold=0ms", "jdk.JavaMonitorWait#threshold=0ms"};
            jcmd(lead, concat(new String[] {"JFR.start", "name=round-bench", "settings=profile",
                "filename=" + jfrDir.resolve("lead-service.jfr")}, waits));
            jcmd(runner, concat(new String[] {"JFR.start", "name=round-bench", "settings=profile",
                "filename=" + jfrDir.resolve("tool-runner-service.jfr")}, waits));
        }
        // this JVM holds the broker, the scripted model and the SSE follower: while it collects, they stand still and the
        // model records a request's arrival late, which the gaps would charge to Cohort. It starts the measured turns
        // with an empty young generation, and says how often it collected during them (see the README)
        System.gc();
        long[] harnessGc0 = harnessGc();
        Map<String, double[]> runner0 = runnerTimers();
        long runnerLogLines0 = lines(runnerLog);
        Map<String, Long> jit0 = jit();
        Map<String, Long> cpu0 = cpu();
        long xid0 = dbStats ? currentXid() : 0;
        long t0 = System.nanoTime();
        List<Turn> measured = new ArrayList<>();
        // the measured turns' request bodies as sent, for the prompt-cache figure: handed over by the model's connection
        // thread (a reference, no copy) and measured in report(), after the CPU figures were read
        tapping = true;
        stack.model().tap(exchanges::add);
        for (int i = 1; i <= turns; i++) {
            Turn t = turn("measured " + i);
            measured.add(t);
            connections();
            System.out.printf("[round-bench] turn %d: round gap p50 %.1f ms p90 %.1f ms (load %s)%n", i, pct(t.gaps(), 50),
                    pct(t.gaps(), 90), load());
            if (peers != null) {
                // Cohort idles meanwhile: its idle CPU and transactions are subtracted over the whole wall time as before;
                // the bench JVM's CPU then includes the peers' model endpoint
                peers.turn(i);
            }
        }
        stack.model().tap(null);
        tapping = false;
        if (peers != null) {
            peerResults = peers.results();
        }
        double elapsed = (System.nanoTime() - t0) / 1e9;
        long[] harnessGc1 = harnessGc();
        long xid1 = dbStats ? currentXid() : 0;
        Map<String, double[]> runner1 = runnerTimers();
        List<String> slowCalls = newLines(runnerLog, runnerLogLines0).stream().filter(l -> l.contains("slow bash call"))
                .map(RoundBenchmark::logMessage).toList();
        Map<String, Long> cpu1 = cpu();
        Map<String, Long> jit1 = jit();
        if (jfrDir != null) {
            jcmd(lead, "JFR.stop", "name=round-bench");
            jcmd(runner, "JFR.stop", "name=round-bench");
            System.out.printf("[round-bench] JFR recordings in %s (jfr view hot-methods <file>)%n", jfrDir);
        }
        report(measured);
        System.out.printf("[round-bench] the benchmark JVM's own collections during the measured turns (broker, model, SSE"
                + " standing still): %d, %d ms in all (heap: -Xmn or -Xms/-Xmx on this JVM's command line)%n",
                harnessGc1[0] - harnessGc0[0], harnessGc1[1] - harnessGc0[1]);
        int measuredRounds = measured.size() * rounds;
        System.out.println("[round-bench] CPU time per round (user+sys from /proc, less than the wall time on a loaded machine; "
                + "idle rate subtracted): " + cpu1.entrySet().stream()
                // with the peers interleaved, PID 1 and the machine also count the peers' processes: left out here
                .filter(e -> peers == null || !(e.getKey().equals(MACHINE) || e.getKey().equals(REAPED_BY_INIT))).map(e -> {
                    double idleMsPerSec = (idle1.get(e.getKey()) - idle0.get(e.getKey())) * 10.0 / idleSeconds;
                    double used = (e.getValue() - cpu0.getOrDefault(e.getKey(), 0L)) * 10.0 - idleMsPerSec * elapsed;
                    return String.format("%s %.1f ms (idle %.1f ms/s)", e.getKey(), used / measuredRounds, idleMsPerSec);
                }).toList());
        // how busy the cores were: the tail of the round is mostly waits for a core (lead-service README)
        double machineMs = (cpu1.get(MACHINE) - cpu0.get(MACHINE)) * 10.0;
        System.out.printf("[round-bench] the machine's %d cores were %.0f %% busy during the measured turns%s (%.1f ms of CPU"
                + " per round in all, idle rate not subtracted)%n", Runtime.getRuntime().availableProcessors(),
                100 * machineMs / (elapsed * 1000 * Runtime.getRuntime().availableProcessors()),
                peers != null ? " and the peers' turns between them" : "", machineMs / measuredRounds);
        System.out.println("[round-bench] of which JIT compiler threads, per round (not idle-subtracted; a settled service"
                + " compiles almost nothing, see --settle): " + jit1.entrySet().stream().map(e -> String.format("%s %.1f ms",
                        e.getKey(), (e.getValue() - jit0.getOrDefault(e.getKey(), 0L)) / (double) measuredRounds)).toList());
        double[] calls0 = runner0 == null ? null : runner0.get(BASH_TIMER);
        double[] calls1 = runner1 == null ? null : runner1.get(BASH_TIMER);
        if (calls0 != null && calls1 != null && calls1[0] > calls0[0]) {
            System.out.printf("[round-bench] tool runner's own bash execution (cohort.toolrunner.calls, after the journal insert): "
                    + "mean %.1f ms over %.0f calls%n", (calls1[1] - calls0[1]) * 1000 / (calls1[0] - calls0[0]),
                    calls1[0] - calls0[0]);
            // where a call's time goes inside the runner (CallPhases), in the order of a call
            StringBuilder phases = new StringBuilder();
            StringBuilder warm = new StringBuilder();
            for (Map.Entry<String, double[]> e : runner1.entrySet()) {
                double[] was = runner0.get(e.getKey());
                if (e.getKey().equals(BASH_TIMER) || was == null || e.getValue()[0] <= was[0]) {
                    continue;
                }
                if (e.getKey().startsWith(WARM)) {
                    warm.append(warm.isEmpty() ? "" : ", ").append(String.format("%s %.0f",
                            e.getKey().substring(WARM.length()), e.getValue()[0] - was[0]));
                    continue;
                }
                phases.append(phases.isEmpty() ? "" : ", ").append(String.format("%s %.2f", e.getKey(),
                        (e.getValue()[1] - was[1]) * 1000 / (e.getValue()[0] - was[0])));
            }
            System.out.println("[round-bench] the runner's bash phases, mean ms per call (cohort.toolrunner.bash.phase): "
                    + phases);
            System.out.println("[round-bench] warm sandboxes taken by the measured calls (cohort.toolrunner.warm.sandbox): "
                    + (warm.isEmpty() ? "none" : warm));
            System.out.printf("[round-bench] the runner's calls of 10 ms or more from their arrival (its DEBUG log): %d%s%n",
                    slowCalls.size(), slowCalls.isEmpty() ? "" : ", the first 8:");
            slowCalls.stream().limit(8).forEach(l -> System.out.println("    " + l));
        }
        kafkaProbe();
        directToolCalls(serviceEnv.get("COHORT_TOOL_RUNNER_TOKEN"));
        System.out.printf("[round-bench] TCP connections used by the lead during the measured turns (distinct client ports, "
                + "sampled after each turn incl. TIME-WAIT): to the tool runner %d, to the model %d%n", runnerClients.size(),
                modelClients.size());
        if (dbStats) {
            DbCounters after = settledCounters();
            int totalRounds = measured.size() * rounds;
            int modelCalls = measured.size() * (rounds + 1);
            double xacts = after.commits - before.commits - idleRate * elapsed - 2; // minus the two xid reads
            System.out.printf("[round-bench] PostgreSQL: %.0f transactions committed over %d measured turns (%.1f per round of %d; "
                    + "idle background %.1f/s subtracted), %d of them writing (%.1f per round)%n", xacts, measured.size(),
                    xacts / totalRounds, totalRounds, idleRate, xid1 - xid0 - 1, (xid1 - xid0 - 1) / (double) totalRounds);
            System.out.println("[round-bench] rows written per round (inserts/updates/deletes), by table:");
            for (var e : after.rows.entrySet()) {
                long[] a = e.getValue();
                long[] b = before.rows.getOrDefault(e.getKey(), new long[3]);
                long ins = a[0] - b[0];
                long upd = a[1] - b[1];
                long del = a[2] - b[2];
                if (ins + upd + del > 0) {
                    System.out.printf("    %-34s %6.2f / %6.2f / %6.2f%n", e.getKey(), ins / (double) totalRounds,
                            upd / (double) totalRounds, del / (double) totalRounds);
                }
            }
            System.out.printf("[round-bench] lead state row: %s%n", stateSize());
            System.out.printf("[round-bench] (model calls per measured turn: %d; turns also write their start and end)%n",
                    modelCalls / measured.size());
        }
        if (dbStats && Boolean.parseBoolean(opts.getOrDefault("statements", "true"))) {
            statements();
        }
        memory("lead-service", lead, leadManagementPort);
        memory("tool-runner-service", runner, runnerManagementPort);
        System.out.printf("[round-bench] done, load average %s%n", load());
    }

    /** The service's memory after the measured turns, as a container's memory limit counts it ({@link ProcessMemory}). */
    private static void memory(String name, Process p, int managementPort) {
        try {
            System.out.printf("[round-bench] memory of %s: %s%n", name,
                    ProcessMemory.of(p.pid(), "http://127.0.0.1:" + managementPort).describe());
        } catch (IOException e) {
            System.out.printf("[round-bench] memory of %s: unreadable (%s)%n", name, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One prompt: 20 tool rounds and the final answer; returns the model requests and the lead's events. */
    Turn turn(String label) throws Exception {
        ScriptedModelServer model = stack.model();
        // no reset between turns: the previous turn's memory extraction may still be on its way to the model. The log
        // of requests is cleared, though: kept, it held every body of the run (thousands of ~65 KB requests by the end
        // of --settle, GBs of JSON trees), and this JVM's collections of it took CPU from the services and paused the
        // broker and the model (TeamBenchmark found the same, and clears it too)
        model.clearLog();
        exchanges.clear();
        long seqBefore = model.requests().stream().mapToLong(RecordedRequest::seq).max().orElse(0);
        StringBuilder rules = new StringBuilder("{\"rules\":[");
        // memory extraction after a completed turn (asynchronous) calls the model too: answered, kept out of the gaps
        rules.append("{\"name\":\"memory\",\"match\":{\"system\":\"You (extract memories|consolidate a memory store)\"},"
                + "\"reply\":{\"text\":\"[]\"}}");
        for (int i = 1; i <= rounds; i++) {
            rules.append(",{\"name\":\"round-").append(i).append("\",\"times\":1,\"match\":{\"agent\":\"").append(AGENT)
                    .append("\",\"hasTools\":true},\"reply\":{\"delayMs\":").append(modelDelayMs)
                    .append(",\"toolCalls\":[{\"name\":\"bash\",\"arguments\":{\"command\":\"true ")
                    .append(i).append("\"},\"id\":\"call_").append(++callIds).append("\"}]}}");
        }
        rules.append(",{\"name\":\"done\",\"times\":1,\"match\":{\"agent\":\"").append(AGENT)
                .append("\",\"hasTools\":true},\"reply\":{\"text\":\"DONE\"}}]}");
        model.load(Scenario.parse(rules.toString()));

        HttpResponse<String> posted = http.send(HttpRequest.newBuilder(URI.create(leadUrl + "/api/v1/teams/" + TEAM + "/prompts"))
                .header("Authorization", "Bearer " + TOKEN).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("text", "round bench: " + label))))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (posted.statusCode() != 202) {
            throw new IllegalStateException("POST /prompts answered " + posted.statusCode() + ": " + posted.body());
        }
        JsonNode accepted = JSON.readTree(posted.body());
        List<JsonNode> events = follow(accepted.get("id").asText(), accepted.get("afterSeq").asLong(), Duration.ofSeconds(120));
        List<RecordedRequest> calls = model.requests().stream()
                .filter(r -> r.seq() > seqBefore && r.rule() != null && !r.rule().equals("memory"))
                .sorted(Comparator.comparingLong(RecordedRequest::seq)).toList();
        if (calls.size() != rounds + 1) {
            throw new IllegalStateException("expected " + (rounds + 1) + " model calls in turn " + label + ", got " + calls.size()
                    + ": " + calls.stream().map(RecordedRequest::rule).toList());
        }
        JsonNode end = events.getLast();
        if (!"completed".equals(end.path("data").path("status").asText())) {
            throw new IllegalStateException("turn " + label + " did not complete: " + end);
        }
        // only what the report reads: a request's parsed body (~65 KB of JSON, several times that as a tree) kept for
        // every measured round grew this JVM's live heap by ~0.5 MB a round, and its G1 pauses (30-136 ms while the
        // model server and the broker in it stood still) were the slowest measured rounds (2026-12-04, late night)
        List<Call> kept = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            RecordedRequest r = calls.get(i);
            boolean sized = i == 0 || i == calls.size() - 1;
            kept.add(new Call(r.time(), sized ? r.body().toString().length() : -1, sized ? r.body().path("tools").size() : -1));
        }
        List<ScriptedModelServer.Exchange> wire = List.of();
        if (tapping) {
            Set<Long> seqs = calls.stream().map(RecordedRequest::seq).collect(Collectors.toSet());
            wire = exchanges.stream().filter(e -> seqs.contains(e.seq()))
                    .sorted(Comparator.comparingLong(ScriptedModelServer.Exchange::seq)).toList();
            if (wire.size() != calls.size()) {
                throw new IllegalStateException("the model's tap saw " + wire.size() + " of the turn's " + calls.size() + " requests");
            }
            exchanges.clear();
        }
        return new Turn(kept, events, rounds, modelDelayMs, wire);
    }

    /** The model wire's name, as the tables print it. */
    String wireName() {
        return provider.equals("anthropic") ? "Anthropic Messages" : "OpenAI chat completions";
    }

    /** One model request of a turn: when it arrived; the body's size and tool count for a turn's first and last (else -1). */
    record Call(Instant time, int bodyChars, int tools) {
    }

    /** The prompt's events from the team's SSE stream ({@code since=afterSeq}) up to its {@code turn_completed}. */
    private List<JsonNode> follow(String promptId, long afterSeq, Duration timeout) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create(leadUrl + "/api/v1/teams/" + TEAM + "/events?since=" + afterSeq))
                .header("Authorization", "Bearer " + TOKEN).header("Accept", "text/event-stream").GET().build();
        HttpResponse<Stream<String>> r = http.send(req, HttpResponse.BodyHandlers.ofLines());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("GET /events answered " + r.statusCode());
        }
        List<JsonNode> out = new ArrayList<>();
        CompletableFuture<Void> done = CompletableFuture.runAsync(() -> {
            var it = r.body().iterator();
            while (it.hasNext()) {
                String line = it.next();
                if (!line.startsWith("data:")) {
                    continue;
                }
                try {
                    JsonNode e = JSON.readTree(line.substring(5).trim());
                    if (!promptId.equals(Event.promptIdOf(e))) {
                        continue;
                    }
                    String type = e.path("type").asText();
                    if (type.equals("approval_requested")) {
                        throw new IllegalStateException("the lead asks for an approval: " + e);
                    }
                    out.add(e);
                    if (type.equals("turn_completed")) {
                        return;
                    }
                } catch (IOException ex) {
                    throw new IllegalStateException("bad event " + line, ex);
                }
            }
            throw new IllegalStateException("the event stream ended before turn_completed");
        });
        try {
            done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            r.body().close();
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------------ figures

    /**
     * The model requests of one turn (rounds + 1), the prompt's events, and (measured turns only) the requests and
     * answers as they crossed the wire.
     */
    record Turn(List<Call> calls, List<JsonNode> events, int rounds, long modelDelayMs, List<ScriptedModelServer.Exchange> wire) {

        /** Round i's gap: request i+1 arrived − request i arrived, less the model's delay ({@code model-delay-ms}), in ms. */
        double[] gaps() {
            double[] g = new double[rounds];
            for (int i = 0; i < rounds; i++) {
                g[i] = ms(calls.get(i).time(), calls.get(i + 1).time()) - modelDelayMs;
            }
            return g;
        }

        /** Per round: {reply, pre-call, tool, post-call, tool durationMs as the lead reports it}. */
        double[][] phases() {
            double[][] p = new double[rounds][5];
            for (int i = 0; i < rounds; i++) {
                Instant from = calls.get(i).time();
                Instant to = calls.get(i + 1).time();
                Instant assistant = first("assistant_message", from, to);
                Instant started = first("tool_call_started", from, to);
                JsonNode finishedEvent = firstEvent("tool_call_finished", from, to);
                if (assistant == null || started == null || finishedEvent == null) {
                    throw new IllegalStateException("round " + (i + 1) + " lacks an event between the model requests");
                }
                Instant finished = ts(finishedEvent);
                p[i][0] = ms(from, assistant) - modelDelayMs;
                p[i][1] = ms(assistant, started);
                p[i][2] = ms(started, finished);
                p[i][3] = ms(finished, to);
                p[i][4] = finishedEvent.path("data").path("durationMs").asDouble();
            }
            return p;
        }

        private Instant first(String type, Instant from, Instant to) {
            JsonNode e = firstEvent(type, from, to);
            return e == null ? null : ts(e);
        }

        private JsonNode firstEvent(String type, Instant from, Instant to) {
            for (JsonNode e : events) {
                Instant t = ts(e);
                if (e.path("type").asText().equals(type) && !t.isBefore(from) && t.isBefore(to)) {
                    return e;
                }
            }
            return null;
        }
    }

    private void report(List<Turn> measured) {
        List<Double> gaps = new ArrayList<>();
        List<double[]> phases = new ArrayList<>();
        double[] firstCall = new double[measured.size()];
        int k = 0;
        for (Turn t : measured) {
            for (double g : t.gaps()) {
                gaps.add(g);
            }
            phases.addAll(Arrays.asList(t.phases()));
            firstCall[k++] = t.events().isEmpty() ? 0 : ms(ts(t.events().getFirst()), t.calls().getFirst().time());
        }
        double[] g = gaps.stream().mapToDouble(Double::doubleValue).toArray();
        cohortGaps = g;
        System.out.printf("[round-bench] ROUND GAP over %d turns x %d rounds: p50 %.1f ms  p90 %.1f ms  p99 %.1f ms  max %.1f ms  mean %.1f ms%n",
                measured.size(), rounds, pct(g, 50), pct(g, 90), pct(g, 99), pct(g, 100), Arrays.stream(g).average().orElse(0));
        String[] names = {"reply: request -> assistant_message (reply, parse, state save)",
            "pre-call: assistant_message -> tool_call_started (+ store/publish assistant_message)",
            "tool: tool_call_started -> tool_call_finished (+ store/publish started, gates, hooks)",
            "post-call: tool_call_finished -> next request (+ store/publish finished, save, prompt)",
            "  (tool durationMs the lead reports)"};
        System.out.println("[round-bench] per phase (ms):            p50     p90     p99    mean");
        for (int s = 0; s < names.length; s++) {
            final int col = s;
            double[] v = phases.stream().mapToDouble(r -> r[col]).toArray();
            System.out.printf("    %-86s %6.1f  %6.1f  %6.1f  %6.1f%n", names[s], pct(v, 50), pct(v, 90), pct(v, 99),
                    Arrays.stream(v).average().orElse(0));
        }
        // the tail, round by round: which phase made each of the slowest rounds slow (p99 of 200 is the 2nd worst)
        Integer[] order = new Integer[g.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingDouble((Integer i) -> g[i]).reversed());
        System.out.println("[round-bench] the 5 slowest rounds (ms): gap = reply + pre-call + tool + post-call; (durationMs)"
                + " and when the round's model request arrived (UTC, to set beside the services' logs)");
        for (int r = 0; r < Math.min(5, order.length); r++) {
            double[] p = phases.get(order[r]);
            Instant at = measured.get(order[r] / rounds).calls().get(order[r] % rounds).time();
            System.out.printf("    turn %d round %2d: %5.1f = %4.1f + %4.1f + %4.1f + %4.1f  (%4.1f)  at %s%n", order[r] / rounds + 1,
                    order[r] % rounds + 1, g[order[r]], p[0], p[1], p[2], p[3], p[4], at);
        }
        System.out.printf("[round-bench] turn_started -> first model request: p50 %.1f ms%n", pct(firstCall, 50));
        cohortCache = new PromptCache.Tally();
        for (Turn t : measured) {
            cohortCache.addTurn(t.wire().stream().map(e -> PromptCache.Request.of(PromptCache.Wire.ofPath(e.path()), e.request(),
                    e.response())).toList());
        }
        System.out.printf("[round-bench] PROMPT CACHE (%s): %s%n", wireName(), cohortCache.describe());
        System.out.printf("[round-bench] the round whose prompt shared the least with the round before: %s%n", cohortCache.lowestAt());
        Turn last = measured.getLast();
        System.out.printf("[round-bench] model request body: first %d bytes, last %d bytes (the whole conversation and the %d tool schemas each round)%n",
                last.calls().getFirst().bodyChars(), last.calls().getLast().bodyChars(), last.calls().getFirst().tools());
    }

    static double pct(double[] values, double p) {
        double[] v = values.clone();
        Arrays.sort(v);
        if (v.length == 0) {
            return Double.NaN;
        }
        int i = (int) Math.ceil(p / 100.0 * v.length) - 1;
        return v[Math.max(0, Math.min(v.length - 1, i))];
    }

    static double ms(Instant a, Instant b) {
        return Duration.between(a, b).toNanos() / 1e6;
    }

    static Instant ts(JsonNode event) {
        JsonNode ts = event.path("ts");
        return ts.isNumber() ? Instant.ofEpochSecond(0, (long) (ts.asDouble() * 1e9)) : Instant.parse(ts.asText());
    }

    static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "unknown";
        }
    }

    // ------------------------------------------------------------------------------------------------ PostgreSQL

    record DbCounters(long commits, Map<String, long[]> rows) {
    }

    private Connection db() throws SQLException {
        return DriverManager.getConnection(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
    }

    /** As the superuser: the server's settings and its data directory are not the services' role's to see or change. */
    private Connection adminDb() throws SQLException {
        return DriverManager.getConnection(stack.jdbcUrl(), stack.dbSuperuser(), stack.dbSuperuserPassword());
    }

    /**
     * The counters once the services' pending statistics reached the shared counters: a backend flushes them at most
     * once a second and an idle one within about 10 s, so this waits until two reads 2 s apart agree (at most 15 s).
     */
    private DbCounters settledCounters() throws Exception {
        DbCounters last = counters();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            Thread.sleep(2000);
            DbCounters now = counters();
            DbCounters prev = last;
            if (now.rows.keySet().equals(prev.rows.keySet()) && now.rows.entrySet().stream()
                    .allMatch(e -> Arrays.equals(e.getValue(), prev.rows.get(e.getKey())))) {
                return now;
            }
            last = now;
        }
        return last;
    }

    /** Transactions per second while nothing runs (pollers, the sweeper, this benchmark's own reads). */
    private double idleTransactionRate(DbCounters from) throws Exception {
        long t0 = System.nanoTime();
        Thread.sleep(12_000);
        DbCounters to = settledCounters();
        return (to.commits - from.commits) / ((System.nanoTime() - t0) / 1e9);
    }

    private DbCounters counters() throws SQLException {
        try (Connection c = db(); Statement s = c.createStatement()) {
            long commits;
            try (ResultSet rs = s.executeQuery("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")) {
                rs.next();
                commits = rs.getLong(1);
            }
            Map<String, long[]> rows = new TreeMap<>();
            try (ResultSet rs = s.executeQuery("SELECT schemaname || '.' || relname, n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_user_tables")) {
                while (rs.next()) {
                    rows.put(rs.getString(1), new long[] {rs.getLong(2), rs.getLong(3), rs.getLong(4)});
                }
            }
            return new DbCounters(commits, rows);
        }
    }

    /** The transaction id counter: its advance counts the transactions that wrote (read-only ones take none). */
    private long currentXid() throws SQLException {
        try (Connection c = db(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT txid_current()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private String stateSize() {
        try (Connection c = db(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT length(a.state::text), pg_column_size(a.state), count(m.idx), COALESCE(sum(length(m.message::text)), 0) "
                        + "FROM lead.agents a LEFT JOIN lead.agent_messages m ON m.team = a.team AND m.name = a.name "
                        + "WHERE a.team = 'default' AND a.name = 'lead' GROUP BY a.state")) {
            return rs.next() ? rs.getLong(1) + " chars of JSON (" + rs.getLong(2) + " bytes stored), rewritten by every save; "
                    + rs.getLong(3) + " messages (" + rs.getLong(4) + " chars of JSON) in lead.agent_messages, a save inserts "
                    + "only its new ones" : "no row";
        } catch (SQLException e) {
            // services built before delta saves keep the conversation in the state row
            try (Connection c = db(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                    "SELECT length(state::text), pg_column_size(state) FROM lead.agents WHERE team = 'default' AND name = 'lead'")) {
                return rs.next() ? rs.getLong(1) + " chars of JSON (" + rs.getLong(2) + " bytes stored), the whole state "
                        + "with its conversation rewritten by every save (a build before delta saves)" : "no row";
            } catch (SQLException again) {
                return "unknown (" + e.getMessage() + "; " + again.getMessage() + ")";
            }
        }
    }

    /**
     * One more turn with {@code log_statement = all} (not timed): every statement the services send, per round, from
     * the server's log. Needs devstack's Debian-binaries PostgreSQL (its log is {@code <data>/../server.log}).
     */
    private void statements() throws Exception {
        Path log;
        try (Connection c = adminDb(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW data_directory")) {
            rs.next();
            log = Path.of(rs.getString(1)).getParent().resolve("server.log");
        }
        if (!Files.isReadable(log)) {
            System.out.println("[round-bench] statement log not readable (" + log + "): statements per round not counted");
            return;
        }
        try (Connection c = adminDb(); Statement s = c.createStatement()) {
            s.execute("ALTER SYSTEM SET log_statement = 'all'");
            s.execute("SELECT pg_reload_conf()");
        }
        Thread.sleep(500); // the reload reaches every backend at its next command
        long from = Files.size(log);
        turn("statement log");
        Thread.sleep(500);
        try (Connection c = adminDb(); Statement s = c.createStatement()) {
            s.execute("ALTER SYSTEM RESET log_statement");
            s.execute("SELECT pg_reload_conf()");
        }
        String text;
        try (var ch = FileChannel.open(log)) {
            var buf = ByteBuffer.allocate((int) (ch.size() - from));
            ch.read(buf, from);
            text = new String(buf.array(), StandardCharsets.UTF_8);
        }
        var line = Pattern.compile("\\[(\\d+)\\] LOG:  (?:statement|execute [^:]+): (.*)");
        Map<String, String> servicesByPid = new HashMap<>();
        List<String[]> stmts = new ArrayList<>();
        for (String l : text.split("\n")) {
            var m = line.matcher(l);
            if (!m.find()) {
                continue;
            }
            String sql = m.group(2).replaceAll("\\s+", " ").trim();
            if (sql.contains("log_statement") || sql.contains("pg_reload_conf") || sql.contains("pg_stat_")) {
                continue;
            }
            if (sql.contains("toolrunner.")) {
                servicesByPid.put(m.group(1), "tool-runner");
            } else if (sql.contains("lead.")) {
                servicesByPid.put(m.group(1), "lead");
            }
            stmts.add(new String[] {m.group(1), sql});
        }
        Map<String, Integer> counts = new TreeMap<>();
        Map<String, Integer> byService = new TreeMap<>();
        for (String[] st : stmts) {
            String svc = servicesByPid.getOrDefault(st[0], "?");
            String key = svc + " | " + (st[1].length() > 120 ? st[1].substring(0, 120) + "…" : st[1]);
            counts.merge(key, 1, Integer::sum);
            byService.merge(svc, 1, Integer::sum);
        }
        System.out.printf("[round-bench] statements in one turn of %d rounds (log_statement=all), by service: %s; per round: %s%n",
                rounds, byService, byService.entrySet().stream().map(e -> e.getKey() + " " + String.format("%.1f", e.getValue() / (double) rounds)).toList());
        counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                .forEach(e -> System.out.printf("    %5d  %s%n", e.getValue(), e.getKey()));
    }

    /** The lead's client ports towards the tool runner and the model (established and TIME-WAIT), from {@code ss}. */
    private void connections() {
        try {
            Process p = new ProcessBuilder("ss", "-tanH").redirectErrorStream(true).start();
            String out;
            try (InputStream in = p.getInputStream()) {
                out = new String(in.readAllBytes());
            }
            p.waitFor();
            int modelPort = URI.create(stack.model().baseUrl()).getPort();
            for (String l : out.split("\n")) {
                String[] f = l.trim().split("\\s+");
                if (f.length < 5) {
                    continue;
                }
                if (f[4].endsWith(":" + runnerPort)) {
                    runnerClients.add(f[3]);
                } else if (f[4].endsWith(":" + modelPort)) {
                    modelClients.add(f[3]);
                }
            }
        } catch (IOException e) {
            // ss missing: not counted
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Turns between the idle measurement and the measured turns. */
    private static final int REWARM_TURNS = 10;

    /** This JVM's collections so far: {count, total ms} over every collector. */
    private static long[] harnessGc() {
        long n = 0;
        long ms = 0;
        for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, gc.getCollectionCount());
            ms += Math.max(0, gc.getCollectionTime());
        }
        return new long[] {n, ms};
    }

    /** The key of the runner's own bash timer in {@link #runnerTimers}; the others are its phases' names. */
    private static final String BASH_TIMER = "";

    /** The prefix of the warm-sandbox outcomes' keys in {@link #runnerTimers} (counts only). */
    private static final String WARM = "warm sandbox: ";

    /** The phases of a bash call inside the runner, in their order ({@code CallPhases}). */
    private static final List<String> RUNNER_PHASES = List.of("request-to-service", "validate-locate", "slot",
            "args-hash", "journal-insert", "args-policy", "to-process-start", "process-run", "after-exit",
            "total-in-service");

    /**
     * {count, sum seconds} of the runner's bash timer ({@link #BASH_TIMER}) and of each of its bash phases, from its
     * Prometheus endpoint, in the phases' order; null when not exposed.
     */
    private Map<String, double[]> runnerTimers() {
        try {
            String body = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + runnerManagementPort + "/q/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            Map<String, double[]> out = new LinkedHashMap<>();
            out.put(BASH_TIMER, new double[2]);
            RUNNER_PHASES.forEach(p -> out.put(p, new double[2]));
            for (String l : body.split("\n")) {
                if (l.startsWith("cohort_toolrunner_warm_sandbox_waited_total")) {
                    out.computeIfAbsent(WARM + "pooled, every one still starting when taken (waited)",
                            k -> new double[2])[0] +=
                            Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1));
                    continue;
                }
                if (l.startsWith("cohort_toolrunner_warm_sandbox_total{") && l.contains("outcome=\"")) {
                    int at = l.indexOf("outcome=\"") + 9;
                    out.computeIfAbsent(WARM + l.substring(at, l.indexOf('"', at)), k -> new double[2])[0] +=
                            Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1));
                    continue;
                }
                int field = l.startsWith("cohort_toolrunner_calls_seconds_count{")
                        || l.startsWith("cohort_toolrunner_bash_phase_seconds_count{") ? 0
                        : l.startsWith("cohort_toolrunner_calls_seconds_sum{")
                                || l.startsWith("cohort_toolrunner_bash_phase_seconds_sum{") ? 1 : -1;
                if (field < 0) {
                    continue;
                }
                String key;
                if (l.startsWith("cohort_toolrunner_calls_")) {
                    if (!l.contains("tool=\"bash\"")) {
                        continue;
                    }
                    key = BASH_TIMER;
                } else {
                    int at = l.indexOf("phase=\"");
                    if (at < 0) {
                        continue;
                    }
                    key = l.substring(at + 7, l.indexOf('"', at + 7));
                }
                double[] v = out.computeIfAbsent(key, k -> new double[2]);
                v[field] += Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1));
            }
            return out;
        } catch (IOException | RuntimeException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * What one awaited Kafka send costs on this broker: 200 sends of a 600-byte event, each waited for, with the
     * lead's producer settings that matter ({@code linger.ms=0}, default {@code acks=all}), from this JVM.
     */
    private void kafkaProbe() throws Exception {
        Map<String, Object> cfg = stack.kafkaClientProperties();
        cfg.put("linger.ms", 0);
        cfg.put("key.serializer", StringSerializer.class.getName());
        cfg.put("value.serializer", StringSerializer.class.getName());
        try (var producer = new KafkaProducer<String, String>(cfg)) {
            String value = "x".repeat(600);
            double[] ms = new double[200];
            for (int i = -50; i < ms.length; i++) {
                long t0 = System.nanoTime();
                producer.send(new ProducerRecord<>(PROBE_TOPIC, TEAM, value)).get();
                if (i >= 0) {
                    ms[i] = (System.nanoTime() - t0) / 1e6;
                }
            }
            System.out.printf("[round-bench] one awaited Kafka send (linger.ms=0, acks=all, same broker): p50 %.2f ms p90 %.2f ms "
                    + "(load %s)%n", pct(ms, 50), pct(ms, 90), load());
        }
    }

    /**
     * The same {@code bash "true N"} called on the runner straight from this JVM (the tool runner's own benchmark's
     * way: {@code ToolRunnerClient}, keep-alive HTTP, a new call id each): what the lead adds is the tool phase minus this.
     */
    private void directToolCalls(String token) {
        var client = new ToolRunnerClient("http://127.0.0.1:" + runnerPort, token,
                Duration.ofSeconds(30));
        double[] ms = new double[100];
        for (int i = -20; i < ms.length; i++) {
            long t0 = System.nanoTime();
            var r = client.call("bash", new ToolCallRequest(TEAM, "bench-direct",
                    "direct-" + i + "-" + System.nanoTime(), null, Map.of("command", "true " + i)));
            if (r.error() != null) {
                System.out.println("[round-bench] direct bash failed: " + r.error());
                return;
            }
            if (i >= 0) {
                ms[i] = (System.nanoTime() - t0) / 1e6;
            }
        }
        System.out.printf("[round-bench] bash \"true N\" called on the runner directly (ToolRunnerClient from the bench JVM): "
                + "p50 %.1f ms p90 %.1f ms (load %s)%n", pct(ms, 50), pct(ms, 90), load());
    }

    /** CPU ticks (1/100 s) used so far by the lead, the runner (and its reaped children), this JVM and PostgreSQL. */
    private Map<String, Long> cpu() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("lead-service", ticks(lead.pid(), false));
        m.put("tool-runner-service", ticks(runner.pid(), false));
        m.put("runner's commands (bwrap, bash)", ticks(runner.pid(), true));
        m.put("bench JVM (Kafka broker, model, SSE)", ticks(ProcessHandle.current().pid(), false));
        long pg = 0;
        try (Connection c = adminDb(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW data_directory")) {
            rs.next();
            long postmaster = Long.parseLong(Files.readAllLines(Path.of(rs.getString(1), "postmaster.pid")).getFirst().trim());
            pg = ticks(postmaster, false) + ticks(postmaster, true);
            for (ProcTree.Proc p : ProcTree.snapshot().values()) {
                if (p.ppid() == postmaster) {
                    pg += p.own();
                }
            }
        } catch (SQLException | IOException | RuntimeException e) {
            pg = 0;
        }
        m.put("PostgreSQL", pg);
        // a sandbox's namespace init (and the command's bash it reaped), when the outer bwrap exits or is killed with
        // its group before reaping it, is reaped by PID 1: its CPU (and any other orphan's on the machine) shows here,
        // not among the runner's children
        m.put(REAPED_BY_INIT, ticks(1, true));
        // every CPU's busy ticks: also what the lines above leave out, the kernel's own threads (a network namespace's
        // teardown after each sandbox, RCU, soft interrupts) and the sandboxes not reaped yet
        m.put(MACHINE, ProcTree.machine()[0]);
        return m;
    }

    /**
     * Warm-up turns until the JIT compiler threads of the lead, the runner and this JVM together use at most
     * {@code settle} ms of CPU per second in each of two windows of 10 turns in a row (at most {@code settle-max}
     * turns): a long-running service's steady state. One window was not enough: on 2026-12-04 (18:42) it ended on a
     * lull, and the lead still compiled 1.9 ms per measured round. With C2 on two cores, compilation goes on for
     * minutes of turns and takes a core's worth of CPU from the round at first (measured 2026-12-03: 25-55 % of the
     * lead's and the runner's CPU after 80 turns).
     */
    private void settleJit() throws Exception {
        ArrayDeque<double[]> window = new ArrayDeque<>(); // {jit ms, wall ns} per turn
        long start = System.nanoTime();
        for (int n = 1; n <= settleMax; n++) {
            long j0 = jit().values().stream().mapToLong(Long::longValue).sum();
            long t0 = System.nanoTime();
            Turn t = turn("settle " + n);
            // the metrics scrape that frames the measured turns, every turn: its first request through the runner's
            // HTTP stack, right before the measured turns, deoptimised the hot request path (PrintCompilation,
            // 2026-12-03), and the measured turns recompiled it (1.6 ms of the runner's JIT per round)
            runnerTimers();
            window.addLast(new double[] {jit().values().stream().mapToLong(Long::longValue).sum() - j0,
                System.nanoTime() - t0});
            if (window.size() > 20) {
                window.removeFirst();
            }
            List<double[]> turnsSeen = new ArrayList<>(window);
            double msPerSecond = rate(turnsSeen.subList(Math.max(0, turnsSeen.size() - 10), turnsSeen.size()));
            double before = turnsSeen.size() == 20 ? rate(turnsSeen.subList(0, 10)) : Double.MAX_VALUE;
            boolean settled = turnsSeen.size() == 20 && msPerSecond <= settle && before <= settle;
            if (n % 10 == 0 || settled) {
                System.out.printf("[round-bench] settle turn %d: round gap p50 %.1f ms, JIT %.0f ms/s over the last %d turns"
                        + " (%s over the 10 before)%n", n, pct(t.gaps(), 50), msPerSecond, Math.min(10, turnsSeen.size()),
                        before == Double.MAX_VALUE ? "-" : String.format("%.0f ms/s", before));
            }
            if (settled) {
                System.out.printf("[round-bench] JIT settled (<= %.0f ms/s) after %d more warm-up turns, %.0f s%n", settle, n,
                        (System.nanoTime() - start) / 1e9);
                return;
            }
        }
        System.out.printf("[round-bench] JIT not settled (> %.0f ms/s) after %d more warm-up turns; measuring anyway%n",
                settle, settleMax);
    }

    /** JIT ms per wall second over turns given as {jit ms, wall ns}. */
    private static double rate(List<double[]> turns) {
        return turns.stream().mapToDouble(w -> w[0]).sum() / (turns.stream().mapToDouble(w -> w[1]).sum() / 1e9);
    }

    /** CPU ms of each JVM's JIT compiler threads ({@link dev.cohort.devstack.JitCpu}). */
    private Map<String, Long> jit() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("lead-service", JitCpu.ms(lead.pid()));
        m.put("tool-runner-service", JitCpu.ms(runner.pid()));
        m.put("bench JVM", JitCpu.ms(ProcessHandle.current().pid()));
        return m;
    }

    static long ticks(long pid, boolean children) {
        ProcTree.Proc p = ProcTree.read(pid);
        return p == null ? 0 : children ? p.children() : p.own();
    }

    private static String[] concat(String[] a, String[] b) {
        String[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    // ------------------------------------------------------------------------------------------------ processes

    /** A log line's message: the services log JSON lines (their prod profile), else the line from the message on. */
    private static String logMessage(String line) {
        if (line.startsWith("{")) {
            try {
                return JSON.readTree(line).path("message").asText();
            } catch (IOException e) {
                return line;
            }
        }
        return line.substring(line.indexOf("slow bash call"));
    }

    private static long lines(Path file) throws IOException {
        try (Stream<String> l = Files.lines(file)) {
            return l.count();
        }
    }

    /** The lines of {@code file} after its first {@code skip}. */
    private static List<String> newLines(Path file, long skip) throws IOException {
        try (Stream<String> l = Files.lines(file)) {
            return l.skip(skip).toList();
        }
    }

    private Process startService(String name, Path jar, int port, int managementPort, Map<String, String> env, Path ws, Path logs,
            Path tmp) throws IOException {
        List<String> cmd = new ArrayList<>(sessionPrefix);
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(serviceFlags(jvmFlags, name));
        // the service's start-up cache as cohort up offers it (COHORT_AOT=0: none)
        cmd.addAll(UpCommand.aotFlags(System.getenv("COHORT_AOT"), jar));
        cmd.add("-Dcohort.parent-pid=" + ProcessHandle.current().pid());
        cmd.add("-Djava.io.tmpdir=" + tmp);
        cmd.add("-jar");
        cmd.add(jar.toAbsolutePath().toString());
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(ws.toFile()).redirectErrorStream(true)
                .redirectOutput(logs.resolve(name + ".log").toFile());
        pb.environment().putAll(env);
        pb.environment().put("QUARKUS_HTTP_PORT", Integer.toString(port));
        pb.environment().put("QUARKUS_MANAGEMENT_PORT", Integer.toString(managementPort));
        pb.environment().put("QUARKUS_MANAGEMENT_HOST", "127.0.0.1");
        Process p = pb.start();
        children.add(p);
        return p;
    }

    private void awaitReady(String name, Process p, int managementPort, Path logs) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new IllegalStateException(name + " exited (" + p.exitValue() + "); see " + logs.resolve(name + ".log")
                        + ":\n" + tail(logs.resolve(name + ".log")));
            }
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/q/health/ready"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException(name + " not ready after 180 s:\n" + tail(logs.resolve(name + ".log")));
    }

    private String sandbox(int managementPort) {
        try {
            String body = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/q/health/ready")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            var m = Pattern.compile("\"sandbox\"\\s*:\\s*\"(\\w+)\"").matcher(body);
            return m.find() ? m.group(1) : "unknown";
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    private static void jcmd(Process p, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
        cmd.add(Long.toString(p.pid()));
        cmd.addAll(List.of(args));
        Process j = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out;
        try (InputStream in = j.getInputStream()) {
            out = new String(in.readAllBytes());
        }
        if (j.waitFor() != 0) {
            throw new IllegalStateException("jcmd " + String.join(" ", args) + " failed: " + out);
        }
    }

    /** Stops the children by PID (SIGTERM, then SIGKILL after 15 s), then the devstack; deletes the run directory. */
    synchronized void stop() {
        if (peers != null) {
            peers.close();
            peers = null;
        }
        for (Process p : children) {
            p.destroy();
        }
        for (Process p : children) {
            try {
                if (!p.waitFor(15, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
            }
        }
        children.clear();
        if (stack != null) {
            stack.close();
            stack = null;
        }
        if (runDir != null && !Boolean.parseBoolean(opts.getOrDefault("keep-logs", "false"))) {
            try (Stream<Path> s = Files.walk(runDir)) {
                s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            } catch (IOException ignored) {
                // best effort
            }
            runDir = null;
        }
    }
}
