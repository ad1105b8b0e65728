package dev.cohort.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.Topics;
import dev.cohort.devstack.kafka.RestartableKafka;
import dev.cohort.devstack.model.Scenario;
import dev.cohort.devstack.model.ScriptedModelServer;
import dev.cohort.devstack.pg.RestartablePostgres;
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
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;

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
    /**
     * Partitions of every topic: as many as teammate-service creates its inbox with by default, so 3 replicas of a
     * service get 4 each (the unit of ownership and failover).
     */
    static final int PARTITIONS = 12;

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
    /** Replicas 2, 3 … of lead-service and teammate-service, by {@link #replicaName}; replica 1 is {@link #procs}. */
    private final Map<String, ServiceProcess> replicas = new ConcurrentHashMap<>();
    /** Each replica's management port (health, metrics) by replica name: the same after a restart. */
    private final Map<String, Integer> managementPorts = new ConcurrentHashMap<>();
    private final Map<String, Integer> replicaPorts = new ConcurrentHashMap<>();
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
        env.putAll(kafka.serviceEnvironment()); // the broker's address and its SASL login
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

    /** Where replica 1 of {@code s} serves health and metrics (its management port, kept across restarts). */
    String managementUrl(Service s) {
        return replicaManagementUrl(s, 1);
    }

    /** Where replica {@code n} of {@code s} serves health and metrics. */
    String replicaManagementUrl(Service s, int n) {
        return "http://127.0.0.1:" + managementPort(s, n);
    }

    private int managementPort(Service s, int n) {
        return managementPorts.computeIfAbsent(replicaName(s, n), k -> Ports.free());
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
        procs.put(s, launch(s, 1, ports.get(s)));
    }

    /**
     * Replica {@code n} of {@code s} with cohort up's environment (a teammate replica named {@code teammate-<n>}, as
     * cohort up names them) and, for the two partitioned services, a Kafka client id naming the replica
     * ({@code rel-lead-<n>}, {@code rel-teammate-<n>}), so {@link #replicaOwning} can tell from the consumer group who
     * owns a partition.
     */
    private ServiceProcess launch(Service s, int n, int port) {
        Map<String, String> e = new LinkedHashMap<>(env);
        if (s == Service.TEAMMATE) {
            e.put("COHORT_INSTANCE_ID", "teammate-" + n); // as cohort up names its replicas
        }
        e.putAll(extraEnv.getOrDefault(s, Map.of()));
        e.put("QUARKUS_MANAGEMENT_PORT", Integer.toString(managementPort(s, n)));
        List<String> flags = new ArrayList<>(ServiceProcess.jvmFlags(s.module));
        if (s == Service.LEAD) {
            flags.add("-Dmp.messaging.incoming.lead-in.client.id=rel-lead-" + n);
        } else if (s == Service.TEAMMATE) {
            flags.add("-Dcohort.teammate-inbox.client.id=rel-teammate-" + n);
        }
        try {
            Path wd = Files.createDirectories(tmp.resolve("wd-" + s.module + (n == 1 ? "" : "-" + n)));
            return ServiceProcess.start(replicaName(s, n), s.jar(), port, e, s == Service.TOOL_RUNNER ? workspace() : wd,
                    START_TIMEOUT, flags);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** {@code lead-service} for replica 1, {@code lead-service-2} … (cohort up's names). */
    static String replicaName(Service s, int n) {
        return n == 1 ? s.module : s.module + "-" + n;
    }

    /**
     * Starts replicas 2 … {@code total} of {@code s} that do not run yet, in parallel, on free ports, and waits until
     * they are ready (they join the service's consumer group, which then rebalances).
     */
    void ensureReplicas(Service s, int total) {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int n = 2; n <= total; n++) {
            if (!replicas.containsKey(replicaName(s, n))) {
                int k = n;
                all.add(CompletableFuture.runAsync(() -> startReplica(s, k)));
            }
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
    }

    /** Starts replica {@code n} (≥ 2) of {@code s} on its port (a free one the first time). */
    void startReplica(Service s, int n) {
        int port = replicaPorts.computeIfAbsent(replicaName(s, n), k -> Ports.free());
        replicas.put(replicaName(s, n), launch(s, n, port));
    }

    /** The replica numbers of {@code s} that run now, ascending (1 is the one the other services' URLs name). */
    List<Integer> liveReplicas(Service s) {
        List<Integer> out = new ArrayList<>();
        if (procs.containsKey(s)) {
            out.add(1);
        }
        for (int n = 2; n <= 9; n++) {
            if (replicas.containsKey(replicaName(s, n))) {
                out.add(n);
            }
        }
        return out;
    }

    /** The process of replica {@code n} of {@code s}, or null when it does not run. */
    ServiceProcess replica(Service s, int n) {
        return n == 1 ? procs.get(s) : replicas.get(replicaName(s, n));
    }

    String replicaUrl(Service s, int n) {
        return n == 1 ? url(s) : "http://127.0.0.1:" + replicaPorts.get(replicaName(s, n));
    }

    /** SIGKILL of replica {@code n} (≥ 2) of {@code s}; its log is kept for failures. It is not started again here. */
    void killReplica(Service s, int n) {
        if (n == 1) {
            kill(s);
            return;
        }
        ServiceProcess p = replicas.remove(replicaName(s, n));
        p.kill();
        synchronized (pastLogs) {
            pastLogs.append("---- ").append(replicaName(s, n)).append(" pid ").append(p.pid()).append(" (killed by the suite) ----\n")
                    .append(p.logTail()).append('\n');
        }
        p.close();
    }

    /** The replica of lead-service whose pid owns the team's lead ({@code lead.agents.owner} is {@code pid@host/…}), or 0. */
    int leadOwner(String team) throws SQLException {
        try (Connection c = db(); var ps = c.prepareStatement("SELECT owner FROM lead.agents WHERE team = ? AND name = 'lead'")) {
            ps.setString(1, team);
            try (var rs = ps.executeQuery()) {
                if (!rs.next() || rs.getString(1) == null) {
                    return 0;
                }
                String owner = rs.getString(1);
                String pid = owner.contains("@") ? owner.substring(0, owner.indexOf('@')) : owner;
                for (int n : liveReplicas(Service.LEAD)) {
                    if (Long.toString(replica(Service.LEAD, n).pid()).equals(pid)) {
                        return n;
                    }
                }
                return -1; // a process that does not run any more
            }
        }
    }

    /** The replica of teammate-service that owns teammate {@code name} ({@code teammate.agents.owner} = {@code teammate-<n>}), or 0. */
    int teammateOwner(String team, String name) throws SQLException {
        try (Connection c = db(); var ps = c.prepareStatement("SELECT owner FROM teammate.agents WHERE team = ? AND name = ?")) {
            ps.setString(1, team);
            ps.setString(2, name);
            try (var rs = ps.executeQuery()) {
                if (!rs.next() || rs.getString(1) == null || !rs.getString(1).startsWith("teammate-")) {
                    return 0;
                }
                return Integer.parseInt(rs.getString(1).substring("teammate-".length()));
            }
        }
    }

    /**
     * Whether the consumer group of {@code s} is stable with one member per running replica and every partition of
     * its topic assigned (after a replica joined, {@link #replicaOwning} is only meaningful then).
     */
    boolean groupSettled(Service s) throws Exception {
        String topic = s == Service.LEAD ? Topics.PROMPTS : Topics.TEAMMATE_INBOX;
        String group = s == Service.LEAD ? "cohort-lead" : "cohort-teammate";
        try (var admin = Admin.create(kafka.clientProperties())) {
            var d = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get(30, TimeUnit.SECONDS);
            long assigned = d.members().stream().flatMap(m -> m.assignment().topicPartitions().stream())
                    .filter(tp -> tp.topic().equals(topic)).count();
            return d.groupState() == GroupState.STABLE && d.members().size() == liveReplicas(s).size()
                    && assigned == PARTITIONS;
        }
    }

    /**
     * The replica of {@code s} (lead-service: {@code cohort.prompts}, group {@code cohort-lead}; teammate-service:
     * {@code cohort.teammate.inbox}, group {@code cohort-teammate}) that the consumer group assigns the partition of
     * {@code key} (Kafka's default partitioner), by the client id {@link #launch} gave it; 0 when none is assigned.
     */
    int replicaOwning(Service s, String key) throws Exception {
        String topic = s == Service.LEAD ? Topics.PROMPTS : Topics.TEAMMATE_INBOX;
        String group = s == Service.LEAD ? "cohort-lead" : "cohort-teammate";
        String prefix = s == Service.LEAD ? "rel-lead-" : "rel-teammate-";
        int partition = Utils.toPositive(Utils.murmur2(
                key.getBytes(StandardCharsets.UTF_8))) % PARTITIONS;
        try (var admin = Admin.create(kafka.clientProperties())) {
            var d = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get(30, TimeUnit.SECONDS);
            for (var m : d.members()) {
                if (m.assignment().topicPartitions().contains(new TopicPartition(topic, partition))
                        && m.clientId().startsWith(prefix)) {
                    String rest = m.clientId().substring(prefix.length());
                    return Integer.parseInt(rest.replaceAll("\\D.*$", ""));
                }
            }
        }
        return 0;
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

    /** Whether every service, each replica that runs included, answers {@code /q/health/ready} with 200 (management port). */
    boolean allReady() {
        for (Service s : Service.values()) {
            for (int n : liveReplicas(s)) {
                if (!ready(replicaManagementUrl(s, n))) {
                    return false;
                }
            }
        }
        return true;
    }

    boolean ready(Service s) {
        return ready(managementUrl(s));
    }

    boolean ready(String base) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(base + "/q/health/ready")).timeout(Duration.ofSeconds(5)).build(),
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
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(managementUrl(Service.TOOL_RUNNER) + "/q/metrics"))
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

    /** A GET of health or metrics on replica 1's management port (no token). */
    HttpResponse<String> managementGet(Service s, String path) {
        return send(HttpRequest.newBuilder(URI.create(managementUrl(s) + path)).timeout(Duration.ofSeconds(30)).GET().build());
    }

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
        replicas.forEach((n, p) -> b.append("---- ").append(n).append(" pid ").append(p.pid()).append(" ----\n")
                .append(p.logTail()).append('\n'));
        return b.toString();
    }

    @Override
    public void close() {
        try {
            for (ServiceProcess p : replicas.values()) {
                p.close();
            }
            replicas.clear();
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
