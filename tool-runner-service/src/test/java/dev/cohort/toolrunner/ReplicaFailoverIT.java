package dev.cohort.toolrunner;

import dev.cohort.core.http.ServiceClient;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cohort.core.protocol.Topics;
import dev.cohort.core.toolrunner.ToolCallRequest;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.toolrunner.ToolRunnerClient;
import dev.cohort.devstack.Devstack;
import dev.cohort.devstack.Ports;
import dev.cohort.devstack.ServiceProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Two packaged runner replicas ({@code target/quarkus-app}) on one devstack (database, broker, workspace root and state
 * directory shared), and a client given both URLs. Replica A is SIGKILLed while it runs a {@code bash} call; the client's
 * retry of that call reaches replica B, which answers from the shared journal that the call was started on A and is not
 * run again, and the next calls go to B.
 */
class ReplicaFailoverIT {
    private static final String TOKEN = "replica-it-token";
    /** A runner JVM starts in 10-20 s on the shared 2-core machine; slower means something is wrong. */
    private static final Duration START = Duration.ofSeconds(120);

    @Test
    void aReplicaKilledMidCallIsNotRunAgainByTheOtherWhichServesTheNextCalls() throws Exception {
        assertThat(Path.of("target", "quarkus-app", "quarkus-run.jar")).as("package the module first (verify does)").exists();
        Path base = Files.createTempDirectory("cohort-tr-replicas");
        try (Devstack stack = Devstack.start(0, Topics.ALL, 1, 0, -1)) {
            failover(stack, base);
        } finally {
            deleteTree(base);
        }
    }

    private static void failover(Devstack stack, Path base) throws Exception {
        Path jar = Path.of("target", "quarkus-app", "quarkus-run.jar").toAbsolutePath();
        Path workspace = Files.createDirectories(base.resolve("workspace"));
        Map<String, String> env = stack.serviceEnvironment();
        env.put("COHORT_WORKSPACE_ROOT", workspace.toString());
        env.put("COHORT_STATE_DIR", Files.createDirectories(base.resolve("state")).toString());
        env.put("COHORT_TOOL_RUNNER_TOKEN", TOKEN);
        String team = "replicas-" + UUID.randomUUID().toString().substring(0, 8);
        Path teamDir = workspace.resolve("teams").resolve(team);
        String marker = "cohort-replica-" + System.nanoTime();

        try (ServiceProcess a = ServiceProcess.start("tool-runner-a", jar, Ports.free(), with(env, "tool-runner-1"), workspace, START);
                ServiceProcess b = ServiceProcess.start("tool-runner-b", jar, Ports.free(), with(env, "tool-runner-2"), workspace, START)) {
            ToolRunnerClient client = new ToolRunnerClient(List.of(a.url(), b.url()), TOKEN, Duration.ofSeconds(60),
                    ServiceClient.Retry.DEFAULT);

            // both replicas serve the team: the client's first goes to A, and B alone sees what A wrote
            assertThat(client.call("bash", bash(team, "c-1", "echo hello > hello.txt; echo written")).output())
                    .isEqualTo("written\n");
            assertThat(instanceOf(stack, team, "c-1")).isEqualTo("tool-runner-1");
            ToolRunnerClient onlyB = new ToolRunnerClient(b.url(), TOKEN, Duration.ofSeconds(30));
            assertThat(onlyB.call("bash", bash(team, "c-2", "cat hello.txt")).output()).isEqualTo("hello\n");
            assertThat(instanceOf(stack, team, "c-2")).isEqualTo("tool-runner-2");

            // a call that records each run, then waits: A runs it, and A is killed while it does
            ToolCallRequest slow = bash(team, "c-slow", "echo run >> runs.txt; touch started; exec -a " + marker + " sleep 30");
            CompletableFuture<Object> answer = CompletableFuture.supplyAsync(() -> {
                try {
                    return client.call("bash", slow);
                } catch (RuntimeException e) {
                    return e;
                }
            });
            await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(teamDir.resolve("started")));
            assertThat(instanceOf(stack, team, "c-slow")).isEqualTo("tool-runner-1");
            List<ProcessHandle> left = ProcessHandle.of(a.pid()).orElseThrow().descendants().toList();
            ProcessHandle.of(a.pid()).orElseThrow().destroyForcibly(); // SIGKILL to the JVM alone, as a crash
            await().atMost(Duration.ofSeconds(60)).until(() -> !a.isAlive());

            // the client's retry went to B, which found the call started on A: outcome unknown, not run again
            Object got = answer.get(90, TimeUnit.SECONDS);
            assertThat(got).isEqualTo(ToolCallResult.failure("this call was started on tool runner replica tool-runner-1;"
                    + " its outcome is unknown here and it is not run again (rule: at-most-once). Check the workspace"
                    + " before retrying with a new call.", 0));
            assertThat(Files.readString(teamDir.resolve("runs.txt"))).isEqualTo("run\n");
            assertThat(statusOf(stack, team, "c-slow")).isEqualTo("running tool-runner-1");

            // the next calls, new ids, go to B and work
            assertThat(client.call("bash", bash(team, "c-3", "cat runs.txt; echo after")).output()).isEqualTo("run\nafter\n");
            assertThat(instanceOf(stack, team, "c-3")).isEqualTo("tool-runner-2");
            assertThat(client.call("bash", bash(team, "c-4", "echo again")).output()).isEqualTo("again\n");
            assertThat(instanceOf(stack, team, "c-4")).isEqualTo("tool-runner-2");

            // the killed call's sandbox died with its runner; whatever did not is stopped here
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> !Processes.anyWith(marker));
            } finally {
                left.forEach(ProcessHandle::destroyForcibly);
            }
        }
    }

    private static Map<String, String> with(Map<String, String> env, String instance) {
        Map<String, String> m = new LinkedHashMap<>(env);
        m.put("COHORT_INSTANCE_ID", instance);
        return m;
    }

    private static ToolCallRequest bash(String team, String callId, String command) {
        return new ToolCallRequest(team, "alice", callId, null, Map.of("command", command));
    }

    /** The instance the journal names for the call (a mutating call is journaled before it runs). */
    private static String instanceOf(Devstack stack, String team, String callId) throws Exception {
        return statusOf(stack, team, callId).split(" ")[1];
    }

    /** {@code "<status> <instance>"} of the call in the journal. */
    private static String statusOf(Devstack stack, String team, String callId) throws Exception {
        try (Connection c = DriverManager.getConnection(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
                PreparedStatement ps = c.prepareStatement(
                        "SELECT status, instance_id FROM toolrunner.tool_calls WHERE team = ? AND agent = 'alice' AND call_id = ?")) {
            ps.setString(1, team);
            ps.setString(2, callId);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("call %s is journaled", callId).isTrue();
                return rs.getString(1) + " " + rs.getString(2);
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
