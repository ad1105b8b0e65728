package dev.cohort.teammate.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.Topics;
import dev.cohort.devstack.Devstack;
import dev.cohort.devstack.model.Scenario;
import dev.cohort.devstack.model.ScriptedModelServer;
import dev.cohort.devstack.Ports;
import dev.cohort.devstack.ServiceProcess;
import dev.cohort.devstack.TempDirs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The whole team as real processes, for the end-to-end team scenarios: the devstack (broker, PostgreSQL,
 * scripted model) in the test JVM; the tool runner, lead-service and N teammate-service replicas as child JVMs from
 * the packaged jars. A teammate replica can be SIGKILLed. {@link #close()} stops every process (by PID) and deletes
 * every temporary directory.
 */
final class TeamStack implements AutoCloseable {

    static final Path TEAMMATE_JAR = Path.of("target", "quarkus-app", "quarkus-run.jar").toAbsolutePath().normalize();
    static final Path LEAD_JAR = Path.of("..", "lead-service", "target", "quarkus-app", "quarkus-run.jar")
            .toAbsolutePath().normalize();
    static final Path RUNNER_JAR = Path.of("..", "tool-runner-service", "target", "quarkus-app", "quarkus-run.jar")
            .toAbsolutePath().normalize();
    /** JVMs start in 10-30 s on the shared 2-core machine when several boot together. */
    static final Duration START_TIMEOUT = Duration.ofMinutes(3);
    static final String RUNNER_TOKEN = "runner-secret-team-it";
    static final String INTERNAL_TOKEN = "internal-secret-team-it";
    static final int PARTITIONS = 12;

    private final Path tmp;
    private final Devstack stack;
    private final Map<String, String> env;
    private final int leadPort;
    private ServiceProcess runner;
    private ServiceProcess lead;
    private final List<ServiceProcess> teammates = new CopyOnWriteArrayList<>();
    private final StringBuilder killedLogs = new StringBuilder();
    private KafkaProducer<String, String> producer;
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private TeamStack(Path tmp, Devstack stack, Map<String, String> env, int leadPort) {
        this.tmp = tmp;
        this.stack = stack;
        this.env = env;
        this.leadPort = leadPort;
    }

    /**
     * Starts the devstack, the tool runner, lead-service and {@code replicas} teammate-service replicas (named
     * {@code teammate-1} …), all with {@code extraEnv}.
     */
    static TeamStack start(int replicas, Map<String, String> extraEnv) {
        Path tmp;
        try {
            tmp = Files.createTempDirectory("cohort-team-it-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Devstack devstack = null;
        TeamStack s = null;
        try {
            devstack = Devstack.start(0, Topics.ALL, PARTITIONS, 0, 0);
            Path workspace = Files.createDirectories(tmp.resolve("workspace"));
            Files.createDirectories(tmp.resolve("runner-state"));
            int runnerPort = Ports.free();
            int leadPort = Ports.free();
            Map<String, String> env = devstack.serviceEnvironment();
            env.putAll(Map.of(
                    "OPENAI_BASE_URL", devstack.model().baseUrl(),
                    "OPENAI_API_KEY", "sk-test",
                    "MODEL_ID", "scripted",
                    "COHORT_TOOL_RUNNER_URL", "http://127.0.0.1:" + runnerPort,
                    "COHORT_TOOL_RUNNER_TOKEN", RUNNER_TOKEN,
                    "COHORT_INTERNAL_TOKEN", INTERNAL_TOKEN,
                    "COHORT_LEAD_URL", "http://127.0.0.1:" + leadPort,
                    "COHORT_SCHEDULER_URL", "http://127.0.0.1:" + Ports.free()));
            env.putAll(extraEnv);
            s = new TeamStack(tmp, devstack, Map.copyOf(env), leadPort);
            TeamStack self = s;
            CompletableFuture<ServiceProcess> runnerF = CompletableFuture.supplyAsync(() -> {
                Map<String, String> runnerEnv = new HashMap<>(self.env);
                runnerEnv.put("COHORT_WORKSPACE_ROOT", workspace.toString());
                runnerEnv.put("COHORT_STATE_DIR", tmp.resolve("runner-state").toString());
                return ServiceProcess.start("tool-runner-team-it", RUNNER_JAR, runnerPort, runnerEnv, workspace, START_TIMEOUT);
            });
            CompletableFuture<ServiceProcess> leadF = CompletableFuture.supplyAsync(() -> {
                try {
                    Path wd = Files.createDirectories(tmp.resolve("lead-wd"));
                    return ServiceProcess.start("lead-team-it", LEAD_JAR, leadPort, self.env, wd, START_TIMEOUT);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            List<CompletableFuture<ServiceProcess>> tms = new ArrayList<>();
            for (int i = 1; i <= replicas; i++) {
                int n = i;
                tms.add(CompletableFuture.supplyAsync(() -> self.newTeammate("teammate-" + n)));
            }
            try {
                s.runner = runnerF.join();
            } finally {
                s.lead = leadF.exceptionally(e -> null).join();
                for (CompletableFuture<ServiceProcess> f : tms) {
                    ServiceProcess p = f.exceptionally(e -> null).join();
                    if (p != null) {
                        s.teammates.add(p);
                    }
                }
            }
            leadF.join();
            tms.forEach(CompletableFuture::join);
            return s;
        } catch (IOException e) {
            cleanUp(s, devstack, tmp);
            throw new UncheckedIOException(e);
        } catch (RuntimeException | Error e) {
            cleanUp(s, devstack, tmp);
            throw e;
        }
    }

    private static void cleanUp(TeamStack s, Devstack devstack, Path tmp) {
        if (s != null) {
            s.close();
            return;
        }
        try {
            if (devstack != null) {
                devstack.close();
            }
        } finally {
            TempDirs.deleteTree(tmp);
        }
    }

    /** The processes running now: tool runner, lead, teammate replicas. */
    List<ServiceProcess> processes() {
        List<ServiceProcess> out = new ArrayList<>();
        if (runner != null) {
            out.add(runner);
        }
        if (lead != null) {
            out.add(lead);
        }
        out.addAll(teammates);
        return out;
    }

    private ServiceProcess newTeammate(String instance) {
        Map<String, String> e = new HashMap<>(env);
        e.put("COHORT_INSTANCE_ID", instance);
        try {
            Path wd = Files.createDirectories(tmp.resolve("wd-" + instance));
            return ServiceProcess.start(instance, TEAMMATE_JAR, Ports.free(), e, wd, START_TIMEOUT);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Starts one more teammate-service replica (e.g. after a SIGKILL), named {@code instance}. */
    ServiceProcess startTeammate(String instance) {
        ServiceProcess p = newTeammate(instance);
        teammates.add(p);
        return p;
    }

    /** The running teammate-service replicas, in start order. */
    List<ServiceProcess> teammates() {
        return List.copyOf(teammates);
    }

    /** SIGKILL of one teammate replica: no shutdown hook, no goodbye to the consumer group. */
    void kill(ServiceProcess replica) {
        replica.kill();
        killedLogs.append("---- killed ").append(replica.pid()).append(" ----\n").append(replica.logTail()).append('\n');
        replica.close();
        teammates.remove(replica);
    }

    String leadUrl() {
        return "http://127.0.0.1:" + leadPort;
    }

    ScriptedModelServer model() {
        return stack.model();
    }

    /** Memory housekeeping requests of the lead are answered "nothing" (as in lead-service's tests). */
    static final String MEMORY_RULE = """
            {"name":"memory-housekeeping","match":{"system":"^You (extract|select|consolidate) memor"},"reply":{"text":"[]"}}""";

    /** Appends scripted-model rules (a comma-separated list of rule objects) after the memory-housekeeping rule. */
    void appendRules(String rules) {
        model().append(Scenario.parse("{\"rules\":[" + MEMORY_RULE + "," + rules + "]}"));
    }

    /** Replaces the scripted model's rules with the memory-housekeeping rule and {@code rules}. */
    void loadRules(String rules) {
        model().load(Scenario.parse("{\"rules\":[" + MEMORY_RULE + "," + rules + "]}"));
    }

    Path workspace() {
        return tmp.resolve("workspace");
    }

    /** A created team's workspace ({@code teams/<id>} under the runner's root). */
    Path workspaceOf(String team) {
        return workspace().resolve("teams").resolve(team);
    }

    Connection db() throws SQLException {
        return DriverManager.getConnection(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
    }

    /** As the superuser: the server's settings and its data directory are not the services' role's to see or change. */
    Connection adminDb() throws SQLException {
        return DriverManager.getConnection(stack.jdbcUrl(), stack.dbSuperuser(), stack.dbSuperuserPassword());
    }

    /** The lead-service and tool-runner processes (benchmarks read their CPU time). */
    List<ServiceProcess> services() {
        return List.of(lead, runner);
    }

    /** The broker's address and SASL login (benchmarks read topics with their own consumer; a mutable copy). */
    Map<String, Object> kafkaClientProperties() {
        return stack.kafkaClientProperties();
    }

    /** Produces one record as an outside system would. */
    void produce(String topic, String key, String value) {
        produce(topic, key, value, Map.of());
    }

    /** Produces one record with these headers (e.g. a {@code traceparent}) as an outside system would. */
    void produce(String topic, String key, String value, Map<String, String> headers) {
        synchronized (this) {
            if (producer == null) {
                Properties p = new Properties();
                p.putAll(stack.kafkaClientProperties());
                p.put(ProducerConfig.ACKS_CONFIG, "all");
                producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
            }
        }
        try {
            ProducerRecord<String, String> r = new ProducerRecord<>(topic, key, value);
            headers.forEach((k, v) -> r.headers().add(k, v.getBytes(StandardCharsets.UTF_8)));
            producer.send(r).get();
        } catch (Exception e) {
            throw new IllegalStateException("cannot produce to " + topic, e);
        }
    }

    /** The team's stored events ({@code type}, {@code agent}, {@code data}), in seq order. */
    List<JsonNode> events(String team) {
        try (Connection c = db(); PreparedStatement ps = c.prepareStatement(
                "SELECT seq, type, agent, data::text FROM lead.events WHERE team = ? ORDER BY seq")) {
            ps.setString(1, team);
            List<JsonNode> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(Json.MAPPER.createObjectNode().put("seq", rs.getLong(1)).put("type", rs.getString(2))
                            .put("agent", rs.getString(3)).set("data", json(rs.getString(4))));
                }
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Everything a failure message needs: the log tails of every process. */
    String logs() {
        StringBuilder b = new StringBuilder(killedLogs);
        if (lead != null) {
            b.append("---- lead-service ----\n").append(lead.logTail()).append('\n');
        }
        for (ServiceProcess t : teammates) {
            b.append("---- teammate-service ").append(t.pid()).append(" ----\n").append(t.logTail()).append('\n');
        }
        if (runner != null) {
            b.append("---- tool-runner ----\n").append(runner.logTail()).append('\n');
        }
        return b.toString();
    }

    // ---- HTTP

    HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(URI.create(leadUrl() + path)).timeout(Duration.ofSeconds(30)).GET().build());
    }

    HttpResponse<String> post(String path, Object body) {
        return send(HttpRequest.newBuilder(URI.create(leadUrl() + path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(Json.write(body)))
                .build());
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
            return s == null ? Json.MAPPER.nullNode() : Json.MAPPER.readTree(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String createTeam(String id) {
        return createTeam(id, "default");
    }

    String createTeam(String id, String permissionMode) {
        HttpResponse<String> r = post("/api/v1/teams", Map.of("id", id, "permissionMode", permissionMode));
        if (r.statusCode() != 201) {
            throw new IllegalStateException("creating team " + id + ": " + r.statusCode() + " " + r.body());
        }
        return id;
    }

    String prompt(String team, String text) {
        HttpResponse<String> r = post("/api/v1/teams/" + team + "/prompts", Map.of("text", text));
        if (r.statusCode() != 202) {
            throw new IllegalStateException("prompt to " + team + ": " + r.statusCode() + " " + r.body());
        }
        return json(r.body()).get("id").asText();
    }

    @Override
    public void close() {
        try {
            if (producer != null) {
                producer.close(Duration.ofSeconds(5));
            }
        } finally {
            for (ServiceProcess t : teammates) {
                t.close();
            }
            try {
                if (lead != null) {
                    lead.close();
                }
            } finally {
                try {
                    if (runner != null) {
                        runner.close();
                    }
                } finally {
                    try {
                        stack.close();
                    } finally {
                        TempDirs.deleteTree(tmp);
                    }
                }
            }
        }
    }
}
