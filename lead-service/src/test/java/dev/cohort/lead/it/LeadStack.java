package dev.cohort.lead.it;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.Topics;
import dev.cohort.devstack.Devstack;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Black-box rig for the lead-service ITs: the devstack (broker, PostgreSQL, scripted model) in the test JVM, and
 * lead-service — optionally with the real tool runner — as child processes started from the jars {@code package}
 * built. The lead can be SIGKILLed and started again with the same environment and port. {@link #close()} stops
 * every process and deletes every temporary directory, whatever happened before.
 */
final class LeadStack implements AutoCloseable {

    static final Path LEAD_JAR = Path.of("target", "quarkus-app", "quarkus-run.jar").toAbsolutePath().normalize();
    static final Path RUNNER_JAR = Path.of("..", "tool-runner-service", "target", "quarkus-app", "quarkus-run.jar")
            .toAbsolutePath().normalize();
    /** Both JVMs start in 10-20 s on the shared 2-core machine; slower means something is wrong. */
    static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    static final String RUNNER_TOKEN = "runner-secret-it";

    private final Path tmp;
    private final Devstack stack;
    private final Map<String, String> leadEnv;
    private final int leadPort;
    private ServiceProcess runner;
    private ServiceProcess lead;
    /** Logs of lead processes that were killed, kept for failure messages. */
    private final StringBuilder earlierLeadLogs = new StringBuilder();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final String apiToken;

    private LeadStack(Path tmp, Devstack stack, Map<String, String> leadEnv, int leadPort, String apiToken) {
        this.tmp = tmp;
        this.stack = stack;
        this.leadEnv = leadEnv;
        this.leadPort = leadPort;
        this.apiToken = apiToken;
    }

    /**
     * Starts the devstack, then the tool runner (when wanted) and lead-service in parallel.
     *
     * @param apiToken {@code COHORT_API_TOKEN} of the lead, or null for an open API
     * @param extraEnv more environment for the lead (JVM options, config)
     */
    static LeadStack start(boolean withToolRunner, String apiToken, Map<String, String> extraEnv) {
        Path tmp;
        try {
            tmp = Files.createTempDirectory("cohort-lead-it-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Devstack stack = null;
        LeadStack s = null;
        try {
            stack = Devstack.start(0, Topics.ALL, 4, 0, 0);
            Path workspace = Files.createDirectories(tmp.resolve("workspace"));
            Files.createDirectories(tmp.resolve("runner-state"));
            Files.createDirectories(tmp.resolve("lead-wd"));
            int runnerPort = Ports.free();
            Map<String, String> env = stack.serviceEnvironment();
            env.putAll(Map.of(
                    "OPENAI_BASE_URL", stack.model().baseUrl(),
                    "OPENAI_API_KEY", "sk-test",
                    "MODEL_ID", "scripted",
                    "COHORT_TOOL_RUNNER_URL", "http://127.0.0.1:" + runnerPort,
                    "COHORT_TOOL_RUNNER_TOKEN", RUNNER_TOKEN,
                    // no scheduler in these tests; the lead only needs it for cron tools
                    "COHORT_SCHEDULER_URL", "http://127.0.0.1:" + Ports.free()));
            if (apiToken != null) {
                env.put("COHORT_API_TOKEN", apiToken);
            }
            env.putAll(extraEnv);
            s = new LeadStack(tmp, stack, Map.copyOf(env), Ports.free(), apiToken);
            final LeadStack self = s;
            final Devstack st = stack;
            CompletableFuture<ServiceProcess> runnerF = !withToolRunner ? CompletableFuture.completedFuture(null)
                    : CompletableFuture.supplyAsync(() -> {
                        Map<String, String> runnerEnv = st.serviceEnvironment();
                        runnerEnv.put("COHORT_WORKSPACE_ROOT", workspace.toString());
                        runnerEnv.put("COHORT_STATE_DIR", tmp.resolve("runner-state").toString());
                        runnerEnv.put("COHORT_TOOL_RUNNER_TOKEN", RUNNER_TOKEN);
                        return ServiceProcess.start("tool-runner-it", RUNNER_JAR, runnerPort, runnerEnv, workspace, START_TIMEOUT);
                    });
            CompletableFuture<ServiceProcess> leadF = CompletableFuture.supplyAsync(self::newLeadProcess);
            try {
                s.runner = runnerF.join();
            } finally {
                s.lead = leadF.exceptionally(e -> null).join();
            }
            if (s.lead == null) {
                leadF.join(); // rethrows the start failure
            }
            return s;
        } catch (IOException e) {
            cleanUp(s, stack, tmp);
            throw new UncheckedIOException(e);
        } catch (RuntimeException | Error e) {
            cleanUp(s, stack, tmp);
            throw e;
        }
    }

    private static void cleanUp(LeadStack s, Devstack stack, Path tmp) {
        if (s != null) {
            s.close();
            return;
        }
        try {
            if (stack != null) {
                stack.close();
            }
        } finally {
            TempDirs.deleteTree(tmp);
        }
    }

    private ServiceProcess newLeadProcess() {
        return ServiceProcess.start("lead-it", LEAD_JAR, leadPort, leadEnv, tmp.resolve("lead-wd"), START_TIMEOUT);
    }

    /** SIGKILL: no shutdown hook, no commit, no goodbye to the Kafka group. */
    void killLead() {
        lead.kill();
        earlierLeadLogs.append("---- killed lead-service pid ").append(lead.pid()).append(" ----\n").append(lead.logTail()).append('\n');
        lead.close(); // already dead: only removes its hook and log file
        lead = null;
    }

    /** A new lead-service process with the same environment and port. */
    void startLeadAgain() {
        if (lead != null) {
            throw new IllegalStateException("lead-service is still running");
        }
        lead = newLeadProcess();
    }

    /** More lead-service replicas started by {@link #startReplica}, closed with the stack. */
    private final List<ServiceProcess> replicas = new CopyOnWriteArrayList<>();

    /**
     * Starts one more lead-service replica with the lead's environment plus {@code extraEnv}, on its own port and
     * working directory; it joins the lead's consumer group, so a rebalance splits the teams' partitions. Returns it.
     */
    ServiceProcess startReplica(String name, Map<String, String> extraEnv) {
        Map<String, String> env = new HashMap<>(leadEnv);
        env.putAll(extraEnv);
        try {
            Path wd = Files.createDirectories(tmp.resolve("lead-wd-" + name));
            ServiceProcess p = ServiceProcess.start("lead-" + name, LEAD_JAR, Ports.free(), env, wd, START_TIMEOUT);
            replicas.add(p);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String leadUrl() {
        return "http://127.0.0.1:" + leadPort;
    }

    long leadPid() {
        return lead.pid();
    }

    /** The lead-service process started first (to signal it, read its whole log); null after {@link #killLead}. */
    ServiceProcess leadProcess() {
        return lead;
    }

    ScriptedModelServer model() {
        return stack.model();
    }

    Devstack devstack() {
        return stack;
    }

    Path workspace() {
        return tmp.resolve("workspace");
    }

    /** The replicas started with {@link #startReplica}, in start order. */
    List<ServiceProcess> replicas() {
        return List.copyOf(replicas);
    }

    Connection db() throws SQLException {
        return DriverManager.getConnection(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
    }

    /** Everything a failure message needs: the log tails of the lead (earlier and current) and the runner. */
    String logs() {
        StringBuilder b = new StringBuilder(earlierLeadLogs);
        if (lead != null) {
            b.append("---- lead-service pid ").append(lead.pid()).append(" ----\n").append(lead.logTail()).append('\n');
        }
        for (ServiceProcess r : replicas) {
            b.append("---- lead-service replica pid ").append(r.pid()).append(" ----\n").append(r.logTail()).append('\n');
        }
        if (runner != null) {
            b.append("---- tool-runner ----\n").append(runner.logTail()).append('\n');
        }
        return b.toString();
    }

    // ---- HTTP, with the configured token

    HttpResponse<String> get(String path) {
        return send(request(path, apiToken).GET().build());
    }

    HttpResponse<String> post(String path, Object body) {
        return send(request(path, apiToken).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(body))).build());
    }

    /** A request to the lead's management port (health, metrics), which needs no token. */
    HttpRequest.Builder managementRequest(String path) {
        return HttpRequest.newBuilder(URI.create(lead.managementUrl() + path)).timeout(Duration.ofSeconds(30));
    }

    HttpRequest.Builder request(String path, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(leadUrl() + path)).timeout(Duration.ofSeconds(30));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return b;
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
            return Json.MAPPER.readTree(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Creates a team (201) and returns its id. */
    String createTeam(String id) {
        HttpResponse<String> r = post("/api/v1/teams", Map.of("id", id));
        if (r.statusCode() != 201) {
            throw new IllegalStateException("creating team " + id + ": " + r.statusCode() + " " + r.body());
        }
        return id;
    }

    /** Posts a prompt (202) and returns its id. */
    String prompt(String team, String text) {
        HttpResponse<String> r = post("/api/v1/teams/" + team + "/prompts", Map.of("text", text));
        if (r.statusCode() != 202) {
            throw new IllegalStateException("prompt to " + team + ": " + r.statusCode() + " " + r.body());
        }
        return json(r.body()).get("id").asText();
    }

    EventStream events(String team, long since) {
        return EventStream.open(leadUrl() + "/api/v1/teams/" + team + "/events?since=" + since, apiToken);
    }

    @Override
    public void close() {
        for (ServiceProcess r : replicas) {
            r.close();
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
