package dev.cohort.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.Topics;
import dev.cohort.devstack.Ports;
import dev.cohort.devstack.ServiceProcess;
import dev.cohort.devstack.TempDirs;
import dev.cohort.devstack.kafka.RestartableKafka;
import dev.cohort.devstack.model.Scenario;
import dev.cohort.devstack.model.ScriptedModelServer;
import dev.cohort.devstack.pg.RestartablePostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Everything {@code cohort up} runs, as real processes on loopback and free ports: a restartable KRaft broker and
 * PostgreSQL server, the scripted model in this JVM, and the four packaged services (tool runner, lead, teammate,
 * scheduler) as child JVMs with {@code cohort up}'s environment ({@code UpCommand}: tokens, URLs, sandbox {@code auto}).
 * A service can be SIGKILLed or SIGTERMed and started again on its port (what {@code cohort up}'s supervisor does
 * after a crash); the broker and the database can be stopped and started on their data. {@link #close()} stops every
 * process by PID and deletes every temporary directory.
 *
 * <p>The JVMs run with {@link ServiceProcess}'s test flags ({@code -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1}),
 * not {@code cohort up}'s {@code -Xmx384m}: the suite is about what survives, not speed.
 */
final class RelStack implements AutoCloseable {

    static final Path HOME = Path.of("..").toAbsolutePath().normalize();
    /** Several JVMs boot at once on the shared 2-core machine: 10-60 s each under load. */
    static final Duration START_TIMEOUT = Duration.ofMinutes(4);
    static final String API_TOKEN = "rel-api-token-0123456789abcdef0123456789abcdef";
    static final String INTERNAL_TOKEN = "rel-internal-token-0123456789abcdef01234567";
    static final String RUNNER_TOKEN = "rel-runner-token-0123456789abcdef0123456789";
    static final int PARTITIONS = 4;

    /** The four services, by the name the report uses. */
    enum Service {
        TOOL_RUNNER("tool-runner-service"), LEAD("lead-service"), TEAMMATE("teammate-service"), SCHEDULER("scheduler-service");

        final String module;

        Service(String module) {
            this.module = module;
        }

        Path jar() {
            return HOME.resolve(module).resolve("target/quarkus-app/quarkus-run.jar");
        }
    }

    private final Path tmp;
    final RestartableKafka kafka;
    final RestartablePostgres pg;
    final ScriptedModelServer model;
    private final Map<Service, Integer> ports = new LinkedHashMap<>();
    private final Map<Service, ServiceProcess> procs = new ConcurrentHashMap<>();
    private final Map<Service, Map<String, String>> extraEnv = new ConcurrentHashMap<>();
    private final Map<String, String> env = new LinkedHashMap<>();
    private final StringBuilder pastLogs = new StringBuilder();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private RelStack(Path tmp, RestartableKafka kafka, RestartablePostgres pg, ScriptedModelServer model) {
        this.tmp = tmp;
        this.kafka = kafka;
        this.pg = pg;
        this.model = model;
    }

    static RelStack start() {
        return start(Map.of());
    }

    /** As {@link #start()}, with {@code overrides} put over cohort up's environment for every service. */
    static RelStack start(Map<String, String> overrides) {
        for (Service s : Service.values()) {
            if (!Files.isRegularFile(s.jar())) {
                throw new IllegalStateException(s.jar() + " is missing: ./mvnw -B package -DskipTests first");
            }
        }
        Path tmp;
        try {
            tmp = Files.createTempDirectory("cohort-rel-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        RestartableKafka kafka = null;
        RestartablePostgres pg = null;
        ScriptedModelServer model = null;
        RelStack s = null;
        try {
            kafka = RestartableKafka.start(Topics.ALL, PARTITIONS);
            pg = RestartablePostgres.start();
            model = ScriptedModelServer.start(0);
            s = new RelStack(tmp, kafka, pg, model);
            s.overrides.putAll(overrides);
            s.boot();
            return s;
        } catch (RuntimeException | Error e) {
            if (s != null) {
                s.close();
            } else {
                if (model != null) {
                    model.close();
                }
                if (pg != null) {
                    pg.close();
                }
                if (kafka != null) {
                    kafka.close();
                }
                TempDirs.deleteTree(tmp);
            }
            throw e;
        }
    }

    /** What {@link #start(Map)} puts over cohort up's environment. */
    private final Map<String, String> overrides = new LinkedHashMap<>();

    private void boot() {
        try {
            Path ws = Files.createDirectories(tmp.resolve("workspace"));
            new ProcessBuilder("git", "init", "-q", ws.toString()).inheritIO().start().waitFor();
            Files.createDirectories(tmp.resolve("state"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        for (Service s : Service.values()) {
            ports.put(s, Ports.free());
        }
        env.put("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
        env.put("COHORT_DB_URL", pg.jdbcUrl());
        env.put("COHORT_DB_USER", pg.username());
        env.put("COHORT_DB_PASSWORD", pg.password());
        env.put("COHORT_API_TOKEN", API_TOKEN);
        env.put("COHORT_INTERNAL_TOKEN", INTERNAL_TOKEN);
        env.put("COHORT_TOOL_RUNNER_TOKEN", RUNNER_TOKEN);
        env.put("COHORT_WORKSPACE_ROOT", workspace().toString());
        env.put("COHORT_SANDBOX", System.getenv().getOrDefault("COHORT_SANDBOX", "auto"));
        env.put("COHORT_STATE_DIR", tmp.resolve("state").toString());
        env.put("COHORT_LEAD_URL", url(Service.LEAD));
        env.put("COHORT_TEAMMATE_URL", url(Service.TEAMMATE));
        env.put("COHORT_SCHEDULER_URL", url(Service.SCHEDULER));
        env.put("COHORT_TOOL_RUNNER_URL", url(Service.TOOL_RUNNER));
        env.put("OPENAI_BASE_URL", model.baseUrl());
        env.put("OPENAI_API_KEY", "sk-scripted");
        env.put("MODEL_ID", ScriptedModelServer.DEFAULT_MODEL);
        env.putAll(overrides);
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (Service s : Service.values()) {
            all.add(CompletableFuture.runAsync(() -> startService(s)));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
    }

    Path workspace() {
        return tmp.resolve("workspace");
    }

    Path teamWorkspace(String team) {
        return workspace().resolve("teams").resolve(team);
    }

    String url(Service s) {
        return "http://127.0.0.1:" + ports.get(s);
    }

    ServiceProcess process(Service s) {
        return procs.get(s);
    }

    /** Extra environment for one service's next starts (e.g. a smaller tool-runner pool); null removes it. */
    void setExtraEnv(Service s, Map<String, String> extra) {
        if (extra == null) {
            extraEnv.remove(s);
        } else {
            extraEnv.put(s, Map.copyOf(extra));
        }
    }

    /** Starts {@code s} on its port and waits until it is ready. */
    void startService(Service s) {
        Map<String, String> e = new LinkedHashMap<>(env);
        if (s == Service.TEAMMATE) {
            e.put("COHORT_INSTANCE_ID", "teammate-1"); // as cohort up names its first replica
        }
        e.putAll(extraEnv.getOrDefault(s, Map.of()));
        try {
            Path wd = Files.createDirectories(tmp.resolve("wd-" + s.module));
            procs.put(s, ServiceProcess.start(s.module, s.jar(), ports.get(s), e, s == Service.TOOL_RUNNER ? workspace() : wd,
                    START_TIMEOUT));
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** SIGKILL: no shutdown hook, no goodbye to the consumer group or the database. Its log is kept for failures. */
    void kill(Service s) {
        ServiceProcess p = procs.remove(s);
        p.kill();
        retire(s, p);
    }

    /**
     * SIGTERM (a rolling restart's stop), then {@code afterSignal} (e.g. let the call in flight finish), then wait up
     * to 2 min for the exit: the exit status, or -1 when it did not exit by then (it is SIGKILLed).
     */
    int terminate(Service s, Runnable afterSignal) {
        ServiceProcess p = procs.remove(s);
        p.terminate();
        afterSignal.run();
        int code = p.awaitExit(Duration.ofMinutes(2)).orElse(-1);
        retire(s, p);
        return code;
    }

    private void retire(Service s, ServiceProcess p) {
        synchronized (pastLogs) {
            pastLogs.append("---- ").append(s.module).append(" pid ").append(p.pid()).append(" (stopped by the suite) ----\n")
                    .append(p.logTail()).append('\n');
        }
        p.close();
    }

    /** Whether every service answers {@code /q/health/ready} with 200. */
    boolean allReady() {
        for (Service s : Service.values()) {
            if (!ready(s)) {
                return false;
            }
        }
        return true;
    }

    boolean ready(Service s) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url(s) + "/q/health/ready")).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The tool runner's own count of 503 answers ({@code http_server_requests} in its Prometheus metrics). */
    long count503() {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(url(Service.TOOL_RUNNER) + "/q/metrics"))
                .timeout(Duration.ofSeconds(10)).GET().build());
        long n = 0;
        for (String line : r.body().split("\n")) {
            if (line.startsWith("http_server_requests_seconds_count{") && line.contains("status=\"503\"")) {
                n += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return n;
    }

    /** The tool runner's journal status of one call, or null. */
    String callStatus(String team, String callId) throws SQLException {
        try (Connection c = db(); var ps = c.prepareStatement("SELECT status FROM toolrunner.tool_calls WHERE team = ? AND call_id = ?")) {
            ps.setString(1, team);
            ps.setString(2, callId);
            try (var rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    Connection db() throws SQLException {
        return DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password());
    }

    static final String MEMORY_RULE = """
            {"name":"memory-housekeeping","match":{"system":"^You (extract|select|consolidate) memor"},"reply":{"text":"[]"}}""";

    /** Appends rules (a comma-separated list of rule objects) to the scripted model. */
    void appendRules(String rules) {
        model.append(Scenario.parse("{\"rules\":[" + rules + "]}"));
    }

    // ---- HTTP on the public API (with the API token)

    HttpResponse<String> get(Service s, String path) {
        return send(HttpRequest.newBuilder(URI.create(url(s) + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + API_TOKEN).GET().build());
    }

    HttpResponse<String> post(Service s, String path, Object body) {
        return postRaw(s, path, "application/json", HttpRequest.BodyPublishers.ofString(Json.write(body)));
    }

    HttpResponse<String> postRaw(Service s, String path, String contentType, HttpRequest.BodyPublisher body) {
        return send(HttpRequest.newBuilder(URI.create(url(s) + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + API_TOKEN).header("Content-Type", contentType).POST(body).build());
    }

    HttpResponse<String> send(HttpRequest r) {
        try {
            return http.send(r, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static JsonNode json(String s) {
        try {
            return s == null || s.isBlank() ? Json.MAPPER.nullNode() : Json.MAPPER.readTree(s);
        } catch (IOException e) {
            return Json.MAPPER.nullNode();
        }
    }

    /** Log tails of every service, those stopped by the suite included. */
    String logs() {
        StringBuilder b = new StringBuilder();
        synchronized (pastLogs) {
            b.append(pastLogs);
        }
        procs.forEach((s, p) -> b.append("---- ").append(s.module).append(" pid ").append(p.pid()).append(" ----\n")
                .append(p.logTail()).append('\n'));
        return b.toString();
    }

    @Override
    public void close() {
        try {
            for (ServiceProcess p : procs.values()) {
                p.close();
            }
            procs.clear();
        } finally {
            try {
                model.close();
            } finally {
                try {
                    pg.close();
                } finally {
                    try {
                        kafka.close();
                    } finally {
                        TempDirs.deleteTree(tmp);
                    }
                }
            }
        }
    }
}
