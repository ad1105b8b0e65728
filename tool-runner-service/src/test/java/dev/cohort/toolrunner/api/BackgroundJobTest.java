package dev.cohort.toolrunner.api;

import static dev.cohort.toolrunner.Calls.args;
import static dev.cohort.toolrunner.Calls.call;
import static dev.cohort.toolrunner.Calls.newTeam;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.Topics;
import dev.cohort.core.toolrunner.BackgroundJob;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.platform.kafka.KafkaClientProperties;
import dev.cohort.toolrunner.persistence.BackgroundJobStore;
import dev.cohort.toolrunner.Processes;
import dev.cohort.toolrunner.TempWorkspaceResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Background jobs: immediate bg id, completion on the right inbox topic of the real broker, output, cancel, the
 * owner-only tools. Restart recovery is tested on the packaged runner by {@code BackgroundRestartIT}.
 */
@QuarkusTest
class BackgroundJobTest {
    @Inject
    BackgroundJobStore store;

    private KafkaConsumer<String, String> consumer;
    private final List<ConsumerRecord<String, String>> seen = new CopyOnWriteArrayList<>();

    @BeforeEach
    void subscribe() {
        Properties p = new Properties();
        // the service's own connection settings: devstack's broker and its SASL login
        p.putAll(KafkaClientProperties.fromConfig(ConfigProvider.getConfig()));
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "bg-test-" + UUID.randomUUID());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        consumer = new KafkaConsumer<>(p);
        consumer.subscribe(List.of(Topics.LEAD_INBOX, Topics.TEAMMATE_INBOX));
    }

    @AfterEach
    void close() {
        consumer.close();
    }

    private ConsumerRecord<String, String> awaitDone(String jobId) {
        return await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10)).until(() -> {
            consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
            return seen.stream().filter(r -> r.value().contains(jobId)).findFirst().orElse(null);
        }, r -> r != null);
    }

    private static String jobId(ToolCallResult r) {
        return r.outputRef().substring("cohort-output://".length());
    }

    @Test
    void aTeammatesJobReturnsAtOnceAndItsCompletionArrivesOnTheTeammateInboxWithTheWholeOutputRetrievable() {
        String team = newTeam();
        // the job cannot end before the test releases it, so an answer before the release proves it returned at once
        ToolCallResult r = call("bash", team, "alice", null, args("command",
                "until [ -e release-marker ]; do sleep 0.05; done; seq 1 3000; echo done-marker", "run_in_background", true));
        assertThat(r.output()).startsWith("Started background job bg_");
        String id = jobId(r);
        assertThat(id).startsWith("bg_");
        call("bash", team, "alice", null, args("command", "touch release-marker"));

        ConsumerRecord<String, String> rec = awaitDone(id);
        assertThat(rec.topic()).isEqualTo(Topics.TEAMMATE_INBOX);
        assertThat(rec.key()).isEqualTo(team + "/alice");
        AgentMessage m = AgentMessage.parse(rec.value());
        assertThat(m.type()).isEqualTo(MessageType.BACKGROUND_DONE);
        assertThat(m.to()).isEqualTo("alice");
        assertThat(m.team()).isEqualTo(team);
        assertThat(m.metadata()).containsEntry("jobId", id).containsEntry("status", "completed")
                .containsEntry("exitCode", 0).containsEntry("outputRef", "cohort-output://" + id);
        assertThat(m.content()).contains("Background job " + id + " completed (exit code 0)").contains("1\n2\n3\n");

        BackgroundJob job = given().header("Authorization", "Bearer " + TempWorkspaceResource.TOKEN)
                .get("/internal/v1/background/" + id).then().statusCode(200).extract().as(BackgroundJob.class);
        assertThat(job.status()).isEqualTo("completed");
        assertThat(job.exitCode()).isZero();
        assertThat(job.summary()).hasSize(2000);

        ToolCallResult out = call("read_file", team, "alice", null, args("path", r.outputRef(), "offset", 2999));
        assertThat(out.output()).isEqualTo("  2999\t2999\n  3000\t3000\n  3001\tdone-marker\n");
    }

    @Test
    void aLeadsJobReportsFailureOnTheLeadInboxKeyedByTeam() {
        String team = newTeam();
        ToolCallResult r = call("bash", team, "lead", null, args("command", "echo boom >&2; exit 4",
                "run_in_background", true));
        ConsumerRecord<String, String> rec = awaitDone(jobId(r));
        assertThat(rec.topic()).isEqualTo(Topics.LEAD_INBOX);
        assertThat(rec.key()).isEqualTo(team);
        AgentMessage m = AgentMessage.parse(rec.value());
        assertThat(m.metadata()).containsEntry("status", "failed").containsEntry("exitCode", 4);
        assertThat(m.content()).contains("boom");
    }

    @Test
    void aBackgroundTimeoutIsReportedTimedOut() {
        String team = newTeam();
        ToolCallResult r = call("bash", team, "alice", null, args("command", "sleep 300",
                "run_in_background", true, "timeout_ms", 500));
        AgentMessage m = AgentMessage.parse(awaitDone(jobId(r)).value());
        assertThat(m.metadata()).containsEntry("status", "timed_out").doesNotContainKey("exitCode");
    }

    @Test
    void deleteCancelsARunningJobAndItsProcessIsGone() {
        String team = newTeam();
        String marker = "cohort-bg-cancel-" + System.nanoTime();
        ToolCallResult r = call("bash", team, "alice", null, args("command", "exec -a " + marker + " sleep 300",
                "run_in_background", true));
        String id = jobId(r);
        // the DELETE may arrive before or after the process started: either way the answer is the final state
        BackgroundJob job = given().header("Authorization", "Bearer " + TempWorkspaceResource.TOKEN)
                .delete("/internal/v1/background/" + id).then().statusCode(200).extract().as(BackgroundJob.class);
        assertThat(job.status()).isEqualTo("cancelled");
        assertThat(job.finishedAt()).isNotNull();
        assertThat(AgentMessage.parse(awaitDone(id).value()).metadata()).containsEntry("status", "cancelled");
        await().atMost(Duration.ofSeconds(60)).until(() -> !Processes.anyWith(marker));
        given().header("Authorization", "Bearer " + TempWorkspaceResource.TOKEN)
                .get("/internal/v1/background/bg_unknown").then().statusCode(404).contentType("application/problem+json");
    }

    @Test
    void anAgentChecksAndCancelsItsOwnJobButCannotSeeOrCancelAnotherAgentsOrTeamsJob() throws Exception {
        String team = newTeam();
        String otherTeam = newTeam();
        String id = jobId(call("bash", team, "alice", null, args("command", "sleep 300", "run_in_background", true)));

        ToolCallResult own = call("check_background", team, "alice", null, args("job_id", id));
        assertThat(own.error()).isNull();
        assertThat(own.output()).startsWith("Background job " + id + ": running since ")
                .contains("\nCommand: sleep 300\n").endsWith("Output so far: read_file path=\"cohort-output://" + id + "\"");

        String refused = "you (%s) have no background job " + id
                + "; an agent can only see and cancel the jobs it started (rule: background-owner)";
        assertThat(call("check_background", team, "bob", null, args("job_id", id)).error())
                .isEqualTo(refused.formatted("bob"));
        assertThat(call("cancel_background", team, "bob", null, args("job_id", id)).error())
                .isEqualTo(refused.formatted("bob"));
        assertThat(call("check_background", otherTeam, "alice", null, args("job_id", id)).error())
                .isEqualTo(refused.formatted("alice"));
        assertThat(call("cancel_background", otherTeam, "alice", null, args("job_id", id)).error())
                .isEqualTo(refused.formatted("alice"));
        // the refused cancels changed nothing; an unknown id gets the very same answer as a foreign one
        assertThat(store.find(id).orElseThrow().status()).isEqualTo("running");
        assertThat(call("check_background", team, "bob", null, args("job_id", "bg_doesnotexist")).error())
                .isEqualTo(refused.formatted("bob").replace(id, "bg_doesnotexist"));

        ToolCallResult cancelled = call("cancel_background", team, "alice", null, args("job_id", id));
        assertThat(cancelled.error()).isNull();
        assertThat(cancelled.output()).startsWith("Cancelled. Background job " + id + ": cancelled after ");
        assertThat(store.find(id).orElseThrow().status()).isEqualTo("cancelled");
        assertThat(call("cancel_background", team, "alice", null, args("job_id", id)).output())
                .startsWith("Nothing to cancel: Background job " + id + ": cancelled");
    }

    @Test
    void checkBackgroundShowsTheEndOfAFinishedJobAndRefusesABadId() {
        String team = newTeam();
        String id = jobId(call("bash", team, "alice", null, args("command", "echo hello; exit 3",
                "run_in_background", true)));
        awaitDone(id);
        assertThat(call("check_background", team, "alice", null, args("job_id", "cohort-output://" + id)).output())
                .matches("(?s)Background job " + id + ": failed \\(exit code 3\\) after \\d+ ms\nCommand: echo hello; exit 3\n"
                        + "First output:\nhello\nWhole output: read_file path=\"cohort-output://" + id + "\"");
        assertThat(call("check_background", team, "alice", null, args("job_id", "../etc")).error())
                .isEqualTo("job_id must look like bg_<letters and digits> (got '../etc') (rule: bad-argument)");
        assertThat(call("check_background", team, "alice", null, args()).error())
                .isEqualTo("missing required argument 'job_id' (rule: bad-argument)");
    }

    @Test
    void slowCommandsGoToTheBackgroundUnlessTheModelSaysOtherwiseAndMakeSureIsNotABuild() {
        String team = newTeam();
        ToolCallResult slow = call("bash", team, args("command", "make --version || true"));
        assertThat(slow.output()).startsWith("Started background job bg_").contains("looks like a slow command");
        ToolCallResult fg = call("bash", team, args("command", "make --version > /dev/null 2>&1; echo fg",
                "run_in_background", false));
        assertThat(fg.output()).isEqualTo("fg\n");
        assertThat(call("bash", team, args("command", "echo \"make sure\"")).output()).isEqualTo("make sure\n");
    }
}
