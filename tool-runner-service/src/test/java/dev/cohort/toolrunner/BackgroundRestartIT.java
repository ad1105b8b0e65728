package dev.cohort.toolrunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.Topics;
import dev.cohort.core.toolrunner.BackgroundJob;
import dev.cohort.core.toolrunner.ToolCallRequest;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.toolrunner.ToolRunnerClient;
import dev.cohort.devstack.Devstack;
import dev.cohort.devstack.Ports;
import dev.cohort.devstack.ServiceProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * Restart recovery, black box: the packaged runner ({@code target/quarkus-app}) runs as its own process on a devstack,
 * is SIGKILLed while a background job runs, and is started again with the same instance id, database and broker.
 * The job is then reported {@code failed} (state and {@code background_done} on the owner's inbox), and a team's
 * recorded workspace still holds.
 */
class BackgroundRestartIT {
    private static final String TOKEN = "restart-it-token";
    /** A runner JVM starts in 10-20 s on the shared 2-core machine; slower means something is wrong. */
    private static final Duration START = Duration.ofSeconds(120);

    @Test
    void aJobRunningWhenTheRunnerIsKilledIsReportedFailedAfterTheRestartAndTheTeamKeepsItsWorkspace() throws Exception {
        assertThat(Path.of("target", "quarkus-app", "quarkus-run.jar")).as("package the module first (verify does)").exists();
        Path base = Files.createTempDirectory("cohort-tr-restart");
        Path workspace = Files.createDirectories(base.resolve("workspace"));
        Path own = Files.createDirectories(workspace.resolve("projects").resolve("own"));
        Files.writeString(own.resolve("marker.txt"), "still here\n");
        String team = "restart-" + UUID.randomUUID().toString().substring(0, 8);
        String marker = "cohort-restart-" + System.nanoTime();
        try (Devstack stack = Devstack.start(0, Topics.ALL, 1, 0, -1)) {
            crashAndRestart(stack, base, workspace, own, team, marker);
        } finally {
            deleteTree(base);
        }
    }

    private static void crashAndRestart(Devstack stack, Path base, Path workspace, Path own, String team, String marker)
            throws Exception {
        Path jar = Path.of("target", "quarkus-app", "quarkus-run.jar").toAbsolutePath();
        Map<String, String> env = stack.serviceEnvironment();
        env.put("COHORT_WORKSPACE_ROOT", workspace.toString());
        env.put("COHORT_STATE_DIR", Files.createDirectories(base.resolve("state")).toString());
        env.put("COHORT_TOOL_RUNNER_TOKEN", TOKEN);
        env.put("COHORT_INSTANCE_ID", "restart-it");

        String jobId;
        try (ServiceProcess first = ServiceProcess.start("tool-runner", jar, Ports.free(), env, workspace, START)) {
            ToolRunnerClient c = client(first);
            assertThat(c.prepareTeamWorkspace(team, "projects/own")).isEqualTo(own.toRealPath().toString());
            ToolCallResult r = c.call("bash", new ToolCallRequest(team, "alice", "c-" + UUID.randomUUID(), null,
                    Map.of("command", "exec -a " + marker + " sleep 300", "run_in_background", true)));
            jobId = r.outputRef().substring("cohort-output://".length());
            // the job's process really runs before the crash
            await().atMost(Duration.ofSeconds(30)).until(() -> Processes.anyWith(marker));
            assertThat(c.backgroundJob(jobId).orElseThrow().status()).isEqualTo("running");
            first.kill(); // SIGKILL (its children too): no shutdown hook records anything
            assertThat(first.isAlive()).isFalse();
            await().atMost(Duration.ofSeconds(60)).until(() -> !Processes.anyWith(marker));
        }

        try (KafkaConsumer<String, String> inbox = consumer(stack);
                ServiceProcess second = ServiceProcess.start("tool-runner", jar, Ports.free(), env, workspace, START)) {
            ToolRunnerClient c = client(second);
            BackgroundJob job = await().atMost(Duration.ofSeconds(60)).until(
                    () -> c.backgroundJob(jobId).orElseThrow(), j -> !j.status().equals("running"));
            assertThat(job.status()).isEqualTo("failed");
            assertThat(job.error()).isEqualTo("the tool runner restarted while the job was running; its outcome is unknown");
            assertThat(job.finishedAt()).isNotNull();

            List<ConsumerRecord<String, String>> seen = new ArrayList<>();
            ConsumerRecord<String, String> done = await().atMost(Duration.ofSeconds(60)).until(() -> {
                inbox.poll(Duration.ofMillis(200)).forEach(seen::add);
                return seen.stream().filter(x -> x.value().contains(jobId)).findFirst().orElse(null);
            }, x -> x != null);
            assertThat(done.key()).isEqualTo(team + "/alice");
            AgentMessage m = AgentMessage.parse(done.value());
            assertThat(m.type()).isEqualTo(MessageType.BACKGROUND_DONE);
            assertThat(m.metadata()).containsEntry("jobId", jobId).containsEntry("status", "failed");

            // the team's workspace was recorded, not remembered: the restarted runner still works there
            ToolCallResult pwd = c.call("bash", new ToolCallRequest(team, "alice", "c-" + UUID.randomUUID(), null,
                    Map.of("command", "pwd; cat marker.txt")));
            assertThat(pwd.output()).isEqualTo(own.toRealPath() + "\nstill here\n");
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static ToolRunnerClient client(ServiceProcess runner) {
        return new ToolRunnerClient(runner.url(), TOKEN, Duration.ofSeconds(30));
    }

    private static KafkaConsumer<String, String> consumer(Devstack stack) {
        Properties p = new Properties();
        p.putAll(stack.kafkaClientProperties());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "restart-it-" + UUID.randomUUID());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        KafkaConsumer<String, String> c = new KafkaConsumer<>(p);
        c.subscribe(List.of(Topics.TEAMMATE_INBOX));
        return c;
    }
}
