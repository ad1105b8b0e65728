package dev.cohort.cli;

import dev.cohort.core.protocol.Topics;
import dev.cohort.devstack.Devstack;
import dev.cohort.devstack.kafka.KafkaCredentials;
import dev.cohort.devstack.model.ScriptedModelServer;
import dev.cohort.devstack.Ports;
import java.io.File;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.Set;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code cohort up}: the whole system on this machine.
 *
 * <p>Sequence: start the embedded Kafka broker (a SASL/SCRAM login with a password drawn at each start) and
 * PostgreSQL (or use {@code COHORT_DB_URL}) in this JVM →
 * optionally the scripted model → the four services as child JVMs (lead-service, teammate-service, scheduler-service
 * and tool-runner-service as many times as {@code --lead-replicas} / {@code --teammate-replicas} /
 * {@code --scheduler-replicas} / {@code --tool-runner-replicas} say) with the current directory as the
 * {@code default} team's workspace → print where everything listens → wait until every {@code /q/health/ready}
 * is UP → print a one-time dashboard login link ({@link #dashboardLines}) → supervise: a child that exits on its own is reported and restarted with backoff, or given up on
 * ({@link Supervisor}, {@link RestartPolicy}) → run until Ctrl-C / SIGTERM, then end supervision, stop the children
 * (by PID), the broker and the database and delete every temporary directory.
 */
@Command(name = "up", mixinStandardHelpOptions = true,
        description = "Start Kafka, PostgreSQL and the four services locally; the current directory is the default team's workspace.")
public final class UpCommand implements Callable<Integer> {

    /** The services in start order (the tool runner first: the others call it); {@code env} is added to the common one. */
    record Service(String name, String module, int port, Map<String, String> env) {
        Service {
            env = Map.copyOf(env);
        }

        Service(String name, String module, int port) {
            this(name, module, port, Map.of());
        }
    }

    /**
     * At most this many teammate-service JVMs: each may take its 384 MB heap and a share of 2 cores; 16 already spreads
     * the teammates over more replicas than a laptop runs usefully, and a typo ({@code 100}) is refused before it starts.
     */
    static final int MAX_TEAMMATE_REPLICAS = 16;

    /**
     * At most this many scheduler-service JVMs. One replica fires every job due in a minute within that minute's first
     * second; more replicas add failover, not capacity, so 4 is plenty, and each costs a JVM's heap.
     */
    static final int MAX_SCHEDULER_REPLICAS = 4;

    /**
     * At most this many tool-runner-service JVMs. The callers send to one replica and move to the next when it does not
     * answer, so more replicas add failover, not capacity; each costs a JVM's heap and its own team sandboxes.
     */
    static final int MAX_TOOL_RUNNER_REPLICAS = 4;

    /**
     * The JVM flags of every service child: a small heap and the serial collector (several JVMs share a laptop). No
     * {@code -XX:TieredStopAtLevel=1} by default: the services are long-running, and C1-only code costs the lead 5–8 ms
     * per round in steady state (lead-service/README.md, "Round benchmark"); see {@link #jvmFlags}.
     * {@code -XX:MaxTenuringThreshold=1}: an object that outlives one young collection goes to the old generation
     * instead of being copied between the survivor spaces up to 15 times. The tool runner's young pauses copied ~4 MB
     * of such objects each time: 8-17 ms every ~7 s while an agent ran rounds, 1.3-3.8 ms with this flag, the old
     * generation growing no faster in those runs (lead-service/README.md, "The benchmark's own heap, and the runner's young pauses").
     */
    public static final List<String> JVM_FLAGS = List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:MaxTenuringThreshold=1");

    /**
     * What each service's command line starts with: {@code setsid} where it is on the {@code PATH} (util-linux, so
     * Linux), else nothing. It gives each service JVM a session of its own, and so, with the kernel's autogroups on
     * (most desktop distributions), a CPU share of its own: otherwise the lead, the tool runner, the broker and the
     * scripted model all share the one group of the terminal's session, while each sandbox and PostgreSQL has its own.
     * Measured: the round's p50 ~1 ms lower on average over nine alternated runs (lead-service/README.md, "Each
     * service in a session of its own"). {@code setsid} execs the JVM in place (a child of {@code cohort up} never leads a process
     * group), so the PID is the JVM's. A terminal's Ctrl-C (or its closing: SIGHUP) then reaches {@code cohort up}
     * only, which stops the services by PID, as it does on SIGTERM. A {@code kill -9} of {@code cohort up} leaves them
     * running, with or without it: no signal reached them then either.
     */
    public static List<String> sessionPrefix() {
        return sessionPrefix(System.getenv("PATH"));
    }

    /** {@link #sessionPrefix()} for a given {@code PATH}: the first executable {@code setsid} in it, absolute. */
    static List<String> sessionPrefix(String path) {
        if (path == null || path.isBlank()) {
            return List.of();
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isBlank()) {
                continue;
            }
            Path setsid = Path.of(dir).resolve("setsid");
            if (Files.isRegularFile(setsid) && Files.isExecutable(setsid)) {
                return List.of(setsid.toAbsolutePath().toString());
            }
        }
        return List.of();
    }

    /**
     * Added with {@code COHORT_FAST_START=1}: C1 only. On a busy 2-core machine C2's compile threads slowed the start of
     * the four services from ~31 s to ~44 s (none at a moderate load), so a short run (a demo, a try-out) may opt in.
     */
    static final String FAST_START_FLAG = "-XX:TieredStopAtLevel=1";

    @Option(names = "--kafka-port", description = "Kafka broker port (env COHORT_KAFKA_PORT, default 9092).")
    Integer kafkaPort;

    @Option(names = "--pg-port", description = "PostgreSQL port (env COHORT_PG_PORT, default 5433).")
    Integer pgPort;

    @Option(names = "--lead-port", description = "lead-service port (env COHORT_LEAD_PORT, default 8080).")
    Integer leadPort;

    @Option(names = "--teammate-port", description = "teammate-service port (env COHORT_TEAMMATE_PORT, default 8081).")
    Integer teammatePort;

    @Option(names = "--scheduler-port", description = "scheduler-service port (env COHORT_SCHEDULER_PORT, default 8082).")
    Integer schedulerPort;

    @Option(names = "--tool-runner-port", description = "tool-runner-service port (env COHORT_TOOL_RUNNER_PORT, default 8083).")
    Integer toolRunnerPort;

    @Option(names = "--lead-replicas", paramLabel = "N",
            description = "lead-service JVMs to start (default 1): the first on --lead-port, the others on free ports; they share the team partitions.")
    int leadReplicas = 1;

    @Spec
    CommandSpec spec;

    int teammateReplicas = 1;

    @Option(names = "--teammate-replicas", paramLabel = "N", defaultValue = "1",
            description = "teammate-service JVMs to start, 1 to " + MAX_TEAMMATE_REPLICAS + " (default 1): the first on --teammate-port, "
                    + "the others on free ports; they share the teammate partitions.")
    void teammateReplicas(int n) {
        if (n < 1 || n > MAX_TEAMMATE_REPLICAS) {
            throw new ParameterException(spec.commandLine(),
                    "--teammate-replicas must be 1 to " + MAX_TEAMMATE_REPLICAS + ", not " + n);
        }
        teammateReplicas = n;
    }

    int schedulerReplicas = 1;

    @Option(names = "--scheduler-replicas", paramLabel = "N", defaultValue = "1",
            description = "scheduler-service JVMs to start, 1 to " + MAX_SCHEDULER_REPLICAS + " (default 1): the first on --scheduler-port, "
                    + "the others on free ports; they share one database and each due minute of a job fires once.")
    void schedulerReplicas(int n) {
        if (n < 1 || n > MAX_SCHEDULER_REPLICAS) {
            throw new ParameterException(spec.commandLine(),
                    "--scheduler-replicas must be 1 to " + MAX_SCHEDULER_REPLICAS + ", not " + n);
        }
        schedulerReplicas = n;
    }

    int toolRunnerReplicas = 1;

    @Option(names = "--tool-runner-replicas", paramLabel = "N", defaultValue = "1",
            description = "tool-runner-service JVMs to start, 1 to " + MAX_TOOL_RUNNER_REPLICAS + " (default 1): the first on "
                    + "--tool-runner-port, the others on free ports; one workspace root, state directory and database, and "
                    + "the services that call the tool runner get every replica's URL.")
    void toolRunnerReplicas(int n) {
        if (n < 1 || n > MAX_TOOL_RUNNER_REPLICAS) {
            throw new ParameterException(spec.commandLine(),
                    "--tool-runner-replicas must be 1 to " + MAX_TOOL_RUNNER_REPLICAS + ", not " + n);
        }
        toolRunnerReplicas = n;
    }

    @Option(names = "--max-restarts", paramLabel = "N",
            description = "Restarts of one service within --restart-window before cohort up gives up on it (default 5; 0: never restart).")
    int maxRestarts = RestartPolicy.DEFAULT_MAX_RESTARTS;

    @Option(names = "--restart-window", paramLabel = "SECONDS",
            description = "The window --max-restarts counts in (default 600).")
    long restartWindow = RestartPolicy.DEFAULT_WINDOW.toSeconds();

    @Option(names = "--workspace", description = "The default team's workspace (default: the current directory).")
    Path workspace;

    @Option(names = "--scripted-model", arity = "0..1", fallbackValue = "", paramLabel = "SCENARIO",
            description = "Use the scripted model server instead of OPENAI_BASE_URL, optionally loading a scenario file (no key needed).")
    String scriptedModel;

    @Option(names = "--ready-timeout", description = "Seconds to wait for every service to be ready (default 180).")
    int readyTimeout = 180;

    @Option(names = "--exit-when-ready", hidden = true, description = "Stop everything as soon as all services are ready (tests, timing).")
    boolean exitWhenReady;

    private Supervisor supervisor;
    private volatile Devstack stack;
    private Path runDir;
    private volatile String apiToken;
    /** Set once every service answered ready (and the supervision is armed). */
    private final CountDownLatch allReady = new CountDownLatch(1);

    @Override
    public Integer call() throws Exception {
        long t0 = System.nanoTime();
        Path home = Path.of(System.getProperty("cohort.home", ".")).toAbsolutePath().normalize();
        Path ws = (workspace == null ? Path.of("") : workspace).toAbsolutePath().normalize();
        if (leadReplicas < 1) {
            System.err.println("cohort up: --lead-replicas must be 1 or more, not " + leadReplicas);
            return 2;
        }
        if (maxRestarts < 0 || restartWindow < 1) {
            System.err.println("cohort up: --max-restarts must be 0 or more and --restart-window 1 s or more, not "
                    + maxRestarts + " and " + restartWindow);
            return 2;
        }
        List<Service> services = new ArrayList<>(List.of(
                new Service("tool-runner-service", "tool-runner-service", port(toolRunnerPort, "COHORT_TOOL_RUNNER_PORT", 8083)),
                new Service("lead-service", "lead-service", port(leadPort, "COHORT_LEAD_PORT", 8080)),
                new Service("teammate-service", "teammate-service", port(teammatePort, "COHORT_TEAMMATE_PORT", 8081)),
                new Service("scheduler-service", "scheduler-service", port(schedulerPort, "COHORT_SCHEDULER_PORT", 8082))));
        for (Service s : services) {
            Path jar = jar(home, s);
            if (!Files.isRegularFile(jar)) {
                System.err.println("cohort up: " + jar + " is missing - build first: ./mvnw -B install -DskipTests (./cohort does it for you)");
                return 2;
            }
        }
        runDir = Files.createTempDirectory("cohort-up-");
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        supervisor = new Supervisor(RestartPolicy.defaults(maxRestarts, Duration.ofSeconds(restartWindow)), p -> ready(http, p),
                System.out);
        CountDownLatch stop = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            shutdown();
            stop.countDown();
        }, "cohort-up-stop");
        Runtime.getRuntime().addShutdownHook(hook);

        boolean scripted = scriptedModel != null;
        System.out.println("cohort up: starting Kafka and PostgreSQL…");
        stack = Devstack.start(port(kafkaPort, "COHORT_KAFKA_PORT", 9092), Topics.ALL, 4, port(pgPort, "COHORT_PG_PORT", 5433),
                scripted ? port(null, "COHORT_MODEL_PORT", 0) : -1);
        if (scripted && !scriptedModel.isBlank()) {
            stack.model().loadFile(Path.of(scriptedModel));
        }
        // a token given in the environment is used as is (scripts and other clients know it); else a fresh one
        String token = tokenOrGenerated("COHORT_API_TOKEN");
        apiToken = token;
        String internalToken = tokenOrGenerated("COHORT_INTERNAL_TOKEN");
        String toolRunnerToken = tokenOrGenerated("COHORT_TOOL_RUNNER_TOKEN");
        Map<String, String> common = new LinkedHashMap<>();
        common.put("QUARKUS_HTTP_HOST", "127.0.0.1");
        common.putAll(stack.serviceEnvironment());
        common.put("COHORT_API_TOKEN", token);
        common.put("COHORT_INTERNAL_TOKEN", internalToken);
        common.put("COHORT_TOOL_RUNNER_TOKEN", toolRunnerToken);
        common.put("COHORT_WORKSPACE_ROOT", ws.toString());
        // readable service log files: plain text, unless the user asks for the services' JSON lines (cli README)
        common.put("QUARKUS_LOG_CONSOLE_JSON_ENABLED", env("QUARKUS_LOG_CONSOLE_JSON_ENABLED") != null
                ? env("QUARKUS_LOG_CONSOLE_JSON_ENABLED") : "false");
        common.put("COHORT_SANDBOX", env("COHORT_SANDBOX") != null ? env("COHORT_SANDBOX") : "auto"); // none = opt-out
        common.put("COHORT_STATE_DIR", runDir.resolve("state").toString());
        common.put("COHORT_LEAD_URL", "http://127.0.0.1:" + services.get(1).port());
        common.put("COHORT_TEAMMATE_URL", "http://127.0.0.1:" + services.get(2).port());
        common.put("COHORT_SCHEDULER_URL", "http://127.0.0.1:" + services.get(3).port());
        if (scripted) {
            common.put("OPENAI_BASE_URL", stack.model().baseUrl());
            common.put("OPENAI_API_KEY", "sk-scripted");
            common.put("MODEL_ID", ScriptedModelServer.DEFAULT_MODEL);
        }
        // more lead replicas on free ports (picked once the broker, the database and the model listen): the same
        // consumer group, so the range assignor splits the team partitions between them; never a port planned already
        Set<Integer> taken = new HashSet<>(services.stream().map(Service::port).toList());
        taken.add(port(kafkaPort, "COHORT_KAFKA_PORT", 9092));
        taken.add(port(pgPort, "COHORT_PG_PORT", 5433));
        IntSupplier freePort = () -> {
            int p;
            do {
                p = Ports.free();
            } while (!taken.add(p));
            return p;
        };
        for (int i = 2; i <= leadReplicas; i++) {
            services.add(new Service("lead-service-" + i, "lead-service", freePort.getAsInt()));
        }
        // the teammate replicas likewise (one consumer group on cohort.teammate.inbox); each knows its own port and name
        List<Service> teammates = teammateReplicas(teammateReplicas, services.get(2).port(), freePort);
        services.set(2, teammates.get(0));
        services.addAll(teammates.subList(1, teammates.size()));
        // the scheduler replicas likewise: one database, where each due job is claimed by one of them (FOR UPDATE SKIP LOCKED)
        List<Service> schedulers = schedulerReplicas(schedulerReplicas, services.get(3).port(), freePort);
        services.set(3, schedulers.get(0));
        services.addAll(schedulers.subList(1, schedulers.size()));
        // the tool runner replicas likewise: one workspace root, state directory and database (the journal that keeps
        // each call at most once across them); the callers get every replica's URL and move on when one does not answer
        List<Service> runners = toolRunnerReplicas(toolRunnerReplicas, services.get(0).port(), freePort);
        services.set(0, runners.get(0));
        services.addAll(runners.subList(1, runners.size()));
        common.put("COHORT_TOOL_RUNNER_URL", toolRunnerUrls(runners));
        Map<String, Integer> managementPorts = managementPorts(services, taken, freePort);
        Path logs = Files.createDirectories(runDir.resolve("logs"));
        Path serviceTmp = Files.createDirectories(runDir.resolve("tmp"));
        for (Service s : services) {
            // the services' temporary files live in the run directory, so stopping removes them even after a SIGKILL
            List<String> cmd = new ArrayList<>(sessionPrefix());
            cmd.add(javaBin());
            cmd.addAll(jvmFlags(env("COHORT_FAST_START")));
            cmd.addAll(aotFlags(env("COHORT_AOT"), jar(home, s)));
            cmd.addAll(List.of("-Dcohort.parent-pid=" + ProcessHandle.current().pid(), "-Djava.io.tmpdir=" + serviceTmp,
                    "-jar", jar(home, s).toAbsolutePath().toString()));
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.environment().putAll(common);
            pb.environment().putAll(s.env());
            pb.environment().put("QUARKUS_HTTP_PORT", Integer.toString(s.port()));
            int management = managementPorts.get(s.name());
            pb.environment().put("QUARKUS_MANAGEMENT_PORT", Integer.toString(management));
            pb.environment().put("QUARKUS_MANAGEMENT_HOST", "127.0.0.1");
            pb.directory(ws.toFile());
            supervisor.start(s.name(), s.port(), management, pb, logs.resolve(s.name() + ".log"));
        }
        new LocalRun("http://127.0.0.1:" + services.get(1).port(), "http://127.0.0.1:" + services.get(3).port(), token,
                ProcessHandle.current().pid()).write();

        System.out.println();
        // the services have the broker's login in their environment; the password is never printed
        System.out.printf("  %-20s %s  (SASL %s, user %s, password drawn at this start)%n", "kafka", stack.kafka().bootstrapServers(),
                KafkaCredentials.MECHANISM, stack.kafka().credentials().username());
        System.out.printf("  %-20s %s%s%n", "postgresql", stack.jdbcUrl(), stack.postgres() == null ? " (COHORT_DB_URL)" : "");
        for (Supervisor.Child c : supervisor.children()) {
            String instance = services.stream().filter(s -> s.name().equals(c.name)).findFirst()
                    .map(s -> s.env().get("COHORT_INSTANCE_ID")).map(id -> "  replica " + id).orElse("");
            System.out.printf("  %-20s http://127.0.0.1:%d  pid %d  management http://127.0.0.1:%d%s%n", c.name, c.port,
                    c.process().pid(), c.managementPort, instance);
        }
        System.out.printf("  %-20s %s%n", "model", scripted ? stack.model().baseUrl() + " (scripted)" : modelLine());
        System.out.printf("  %-20s %s%n", "workspace", ws);
        System.out.printf("  %-20s %s%n", "logs", logs);
        System.out.printf("  %-20s %s (saved for the CLI in %s)%n", "api token", tokenSource("COHORT_API_TOKEN"), LocalRun.file());
        System.out.printf("  %-20s internal %s, tool runner %s%n", "service tokens", tokenSource("COHORT_INTERNAL_TOKEN"),
                tokenSource("COHORT_TOOL_RUNNER_TOKEN"));
        System.out.println();

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(readyTimeout);
        // a child that exits before all are ready is a start-up failure (a port in use, a bad setting), not a crash
        List<Supervisor.Child> pending = new ArrayList<>(supervisor.children());
        while (!pending.isEmpty()) {
            for (Supervisor.Child c : supervisor.children()) {
                if (!c.process().isAlive()) {
                    System.err.println("cohort up: " + c.name + " exited (" + Supervisor.describeExit(c.process().exitValue())
                            + ") before it was ready; see " + c.log);
                    Supervisor.tail(c.log, System.err);
                    return 1;
                }
            }
            pending.removeIf(c -> ready(http, c.managementPort));
            if (pending.isEmpty()) {
                break;
            }
            if (System.nanoTime() > deadline) {
                System.err.println("cohort up: not ready after " + readyTimeout + " s: " + pending.stream().map(c -> c.name).toList());
                return 1;
            }
            Thread.sleep(250);
        }
        supervisor.arm();
        allReady.countDown();
        System.out.println(sandboxLine(http, managementPorts.get(services.get(0).name())));
        dashboardLines("http://127.0.0.1:" + services.get(1).port(), token).forEach(System.out::println);
        double secs = (System.nanoTime() - t0) / 1e9;
        System.out.printf("cohort up: all four services ready in %.1f s%s. Ctrl-C stops everything.%n", secs,
                replicasNote(leadReplicas, teammateReplicas, schedulerReplicas, toolRunnerReplicas));
        System.out.println(maxRestarts == 0 ? "cohort up: a service that exits stays down (--max-restarts 0)"
                : "cohort up: a service that exits is restarted with backoff (at most " + maxRestarts
                        + (maxRestarts == 1 ? " time" : " times") + " within " + Supervisor.format(Duration.ofSeconds(restartWindow)) + ")");
        if (!scripted && env(anthropic() ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY") == null) {
            System.out.println("cohort up: no model configured - set OPENAI_API_KEY (and OPENAI_BASE_URL / MODEL_ID for another "
                    + "OpenAI-compatible endpoint), or COHORT_LLM_PROVIDER=anthropic with ANTHROPIC_API_KEY and MODEL_ID, and "
                    + "restart, or run `./cohort up --scripted-model` / `./cohort demo` to try it without a key.");
        }
        if (exitWhenReady) {
            return 0;
        }
        stop.await();
        return 0;
    }

    // ---- for a benchmark that runs `cohort up` in its own JVM (ManyTeamsBenchmark), as the CLI's JVM runs it

    /** Waits until every service is ready; false when {@code timeout} passed first (or the start failed). */
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        return allReady.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The broker, the database and (with {@code --scripted-model}) the model this run started; null before or after. */
    public Devstack devstack() {
        return stack;
    }

    /** The API token the services were given. */
    public String apiToken() {
        return apiToken;
    }

    /** Each service child's name ({@code lead-service}, {@code lead-service-2}, …) and its current PID. */
    public Map<String, Long> servicePids() {
        Map<String, Long> pids = new LinkedHashMap<>();
        if (supervisor != null) {
            for (Supervisor.Child c : supervisor.children()) {
                pids.put(c.name, c.process().pid());
            }
        }
        return pids;
    }

    /** Stops everything this run started, as Ctrl-C does. */
    public void stop() {
        shutdown();
    }

    /**
     * Where the dashboard is: a one-time login link ({@code POST /api/v1/login-codes} with the API token, so only once
     * lead-service is ready), and how to get another. The token itself is never printed (this output often lands in
     * logs); the code is in the URL's fragment, which browsers do not send, and it works once.
     */
    static List<String> dashboardLines(String leadUrl, String token) {
        String line = "  %-20s %s";
        try {
            DashboardCommand.Link link = DashboardCommand.create(ApiClient.lead(leadUrl, token), null);
            return List.of(line.formatted("dashboard", link.url()),
                    line.formatted("dashboard login", link.note() + "; `cohort dashboard` prints a new one"));
        } catch (IOException e) {
            return List.of(line.formatted("dashboard", leadUrl + "/"),
                    line.formatted("dashboard login", "no login link (" + ApiCommand.describe(e) + "); paste the api token: jq -r .apiToken "
                            + LocalRun.file()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of(line.formatted("dashboard", leadUrl + "/"));
        }
    }

    /**
     * The teammate-service JVMs: {@code teammate-service} on {@code firstPort}, then {@code teammate-service-2} … on
     * ports from {@code freePort}; each with its own {@code COHORT_TEAMMATE_PORT} and {@code COHORT_INSTANCE_ID}
     * ({@code teammate-1} …, which teammate-service reads as its replica name).
     */
    static List<Service> teammateReplicas(int n, int firstPort, IntSupplier freePort) {
        List<Service> out = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            int port = i == 1 ? firstPort : freePort.getAsInt();
            out.add(new Service(i == 1 ? "teammate-service" : "teammate-service-" + i, "teammate-service", port,
                    Map.of("COHORT_TEAMMATE_PORT", Integer.toString(port), "COHORT_INSTANCE_ID", "teammate-" + i)));
        }
        return out;
    }

    /**
     * The scheduler-service JVMs: {@code scheduler-service} on {@code firstPort}, then {@code scheduler-service-2} … on
     * ports from {@code freePort}. Each picks its own instance id at every start (host name and a random suffix,
     * {@code SchedulerBeans}), so the non-durable jobs of a replica that crashed end with it, restarted or not.
     */
    static List<Service> schedulerReplicas(int n, int firstPort, IntSupplier freePort) {
        List<Service> out = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            out.add(new Service(i == 1 ? "scheduler-service" : "scheduler-service-" + i, "scheduler-service",
                    i == 1 ? firstPort : freePort.getAsInt()));
        }
        return out;
    }

    /**
     * The tool-runner-service JVMs: {@code tool-runner-service} on {@code firstPort}, then {@code tool-runner-service-2} …
     * on ports from {@code freePort}; each with its own {@code COHORT_INSTANCE_ID} ({@code tool-runner-1} …), under which
     * it journals the calls it runs: another replica answers a call started there "outcome unknown" instead of running
     * it again, and the replica itself, restarted, marks its calls left running as interrupted.
     */
    static List<Service> toolRunnerReplicas(int n, int firstPort, IntSupplier freePort) {
        List<Service> out = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            out.add(new Service(i == 1 ? "tool-runner-service" : "tool-runner-service-" + i, "tool-runner-service",
                    i == 1 ? firstPort : freePort.getAsInt(), Map.of("COHORT_INSTANCE_ID", "tool-runner-" + i)));
        }
        return out;
    }

    /** {@code COHORT_TOOL_RUNNER_URL}: the replicas' URLs, comma-separated, the first replica first (one URL for one). */
    static String toolRunnerUrls(List<Service> runners) {
        return String.join(",", runners.stream().map(s -> "http://127.0.0.1:" + s.port()).toList());
    }

    /**
     * Each service's management port (health, metrics), by service name: the first of each kind on its API port + 1000
     * (9080 lead, 9081 teammate, 9082 scheduler, 9083 tool runner with the default ports); replicas, and a port in use
     * or planned already, on a free port. The start-up listing shows each. {@code taken} holds the planned ports and gains these.
     */
    static Map<String, Integer> managementPorts(List<Service> services, Set<Integer> taken, IntSupplier freePort) {
        Map<String, Integer> out = new LinkedHashMap<>();
        Set<String> firsts = new HashSet<>();
        for (Service s : services) {
            int wanted = s.port() + MANAGEMENT_PORT_OFFSET;
            boolean first = firsts.add(s.module());
            out.put(s.name(), first && wanted <= 65535 && bindable(wanted) && taken.add(wanted) ? wanted : freePort.getAsInt());
        }
        return out;
    }

    /** Whether nothing listens on {@code port} of 127.0.0.1 now. */
    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The first service of each kind serves health and metrics on its API port + this. */
    static final int MANAGEMENT_PORT_OFFSET = 1000;

    /**
     * {@link #JVM_FLAGS}, plus {@link #FAST_START_FLAG} when {@code COHORT_FAST_START} is {@code 1}: every service
     * child's flags (public for the round benchmark, which starts the services with the same ones).
     */
    public static List<String> jvmFlags(String fastStart) {
        List<String> flags = new ArrayList<>(JVM_FLAGS);
        if ("1".equals(fastStart == null ? null : fastStart.strip())) {
            flags.add(FAST_START_FLAG);
        }
        return flags;
    }

    /**
     * The service's AOT cache ({@link AotCache}): by default its cache when one was trained for this build and JVM
     * ({@code cohort aot-train}); {@code COHORT_AOT=record} records a training run instead (the demo's services);
     * {@code COHORT_AOT=0} starts without a cache.
     */
    public static List<String> aotFlags(String mode, Path jar) {
        String m = mode == null ? "" : mode.strip();
        if (m.equals("0") || m.equals("off")) {
            return List.of();
        }
        return m.equals("record") ? AotCache.recordFlags(jar) : AotCache.runFlags(jar);
    }

    /** {@code ""}, or {@code " (2 lead-service replicas, 3 teammate-service replicas)"} for what runs more than once. */
    static String replicasNote(int leads, int teammates, int schedulers, int toolRunners) {
        List<String> parts = new ArrayList<>();
        if (leads > 1) {
            parts.add(leads + " lead-service replicas");
        }
        if (teammates > 1) {
            parts.add(teammates + " teammate-service replicas");
        }
        if (schedulers > 1) {
            parts.add(schedulers + " scheduler-service replicas");
        }
        if (toolRunners > 1) {
            parts.add(toolRunners + " tool-runner-service replicas");
        }
        return parts.isEmpty() ? "" : " (" + String.join(", ", parts) + ")";
    }

    private static String modelLine() {
        String model = env("MODEL_ID");
        if (anthropic()) {
            String base = env("ANTHROPIC_BASE_URL");
            return (base == null ? "https://api.anthropic.com/v1" : base) + " (Anthropic) model "
                    + (model == null ? "gpt-4o-mini" : model)
                    + (env("ANTHROPIC_API_KEY") == null ? " (ANTHROPIC_API_KEY not set)" : "");
        }
        String base = env("OPENAI_BASE_URL");
        return (base == null ? "https://api.openai.com/v1" : base) + " model " + (model == null ? "gpt-4o-mini" : model)
                + (env("OPENAI_API_KEY") == null ? " (OPENAI_API_KEY not set)" : "");
    }

    /** The models are on Anthropic's Messages API ({@code COHORT_LLM_PROVIDER=anthropic}). */
    private static boolean anthropic() {
        return "anthropic".equalsIgnoreCase(env("COHORT_LLM_PROVIDER"));
    }

    /** The tool runner's sandbox in force, from its readiness data ({@code "sandbox":"bubblewrap"}) on its management port. */
    static String sandboxLine(HttpClient http, int toolRunnerManagementPort) {
        String requested = env("COHORT_SANDBOX") != null ? env("COHORT_SANDBOX") : "auto";
        String level = "unknown";
        try {
            String body = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + toolRunnerManagementPort + "/q/health/ready"))
                    .timeout(Duration.ofSeconds(2)).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
            var m = Pattern.compile("\"sandbox\"\\s*:\\s*\"(\\w+)\"").matcher(body);
            if (m.find()) {
                level = m.group(1);
            }
        } catch (IOException e) {
            // stays unknown
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return "none".equals(level)
                ? "cohort up: tool sandbox: NONE (COHORT_SANDBOX=none) - model-issued commands run unsandboxed, with your rights"
                : "cohort up: tool sandbox: " + level + " (COHORT_SANDBOX=" + requested + ")";
    }

    private static boolean ready(HttpClient http, int managementPort) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/q/health/ready"))
                    .timeout(Duration.ofSeconds(2)).GET().build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 && r.body().contains("\"UP\"");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Ends supervision (no restart after this), stops the children (SIGTERM, then SIGKILL after 15 s), then the broker
     * and database; deletes the run directory.
     */
    synchronized void shutdown() {
        List<Process> procs = supervisor == null ? List.of() : supervisor.stop();
        if (!procs.isEmpty() || stack != null) {
            System.out.println("cohort up: stopping…");
        }
        for (Process p : procs) {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
        }
        for (Process p : procs) {
            try {
                if (!p.waitFor(15, TimeUnit.SECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
            }
        }
        if (stack != null) {
            try {
                stack.close();
            } catch (RuntimeException e) {
                System.err.println("cohort up: stopping the devstack: " + e.getMessage());
            }
            stack = null;
        }
        LocalRun.remove(ProcessHandle.current().pid());
        if (runDir != null) {
            deleteTree(runDir);
            runDir = null;
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // best effort
        }
    }

    static Path jar(Path home, Service s) {
        return home.resolve(s.module()).resolve("target/quarkus-app/quarkus-run.jar");
    }

    private static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static int port(Integer flag, String env, int dflt) {
        if (flag != null) {
            return flag;
        }
        String v = env(env);
        if (v == null) {
            return dflt;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(env + "=" + v + " is not a port number");
        }
    }

    /** The token in env {@code name}, else 48 random hex digits (never printed). */
    private static String tokenOrGenerated(String name) {
        String given = env(name);
        if (given != null) {
            return given;
        }
        byte[] b = new byte[24];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** "from COHORT_X_TOKEN" or "generated", for the start-up summary (the value itself is never shown). */
    private static String tokenSource(String name) {
        return env(name) != null ? "from " + name : "generated";
    }

    static String env(String name) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? null : v;
    }
}
