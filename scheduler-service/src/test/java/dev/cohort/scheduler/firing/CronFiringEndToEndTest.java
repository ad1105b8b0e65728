package dev.cohort.scheduler.firing;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.PromptRecord;
import dev.cohort.core.protocol.Topics;
import dev.cohort.scheduler.support.KafkaTopics;
import dev.cohort.scheduler.support.LeadServiceStub;
import dev.cohort.scheduler.support.TestClock;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The running service end to end: a job created over HTTP is fired by the service's own scheduler thread onto Kafka.
 * The application clock runs in real time from a chosen instant just before a minute, so how soon after its minute a
 * job is published is measured against the broker's record timestamps, in real time, and printed (the README's
 * figure); the test asserts what does not depend on the machine's load: never before the minute, and for that minute
 * (before the job's next one), not caught up later.
 */
@QuarkusTest
class CronFiringEndToEndTest {

    @Inject
    TestClock clock;

    @AfterEach
    void realTime() {
        clock.reset();
    }

    @Test
    void aDueJobFiresAtItsMinuteAsACronPromptAndACronFiredEvent() {
        JsonPath job = create("e2e-lead", "{\"cron\":\"*/2 * * * *\",\"prompt\":\"print the current date and time\"}");
        String id = job.getString("id");
        Instant due = Instant.parse(job.getString("nextFireAt"));

        long boundaryMillis = System.currentTimeMillis() + 400;
        clock.runFrom(due.minusMillis(400));

        ConsumerRecord<String, String> record = await().atMost(Duration.ofSeconds(60))
                .until(() -> recordsWith(Topics.PROMPTS, id), r -> !r.isEmpty()).get(0);
        long lateMillis = record.timestamp() - boundaryMillis;
        System.out.printf("cron prompt published %d ms after its minute%n", lateMillis);
        assertThat(lateMillis).as("published %d ms after the minute", lateMillis).isNotNegative();
        assertThat(record.key()).isEqualTo("e2e-lead");
        PromptRecord prompt = PromptRecord.fromRecord(record.key(), record.value());
        assertThat(prompt).isEqualTo(new PromptRecord(prompt.id(), "e2e-lead", "print the current date and time", "cron",
                "cron/" + id + "/" + due, id));
        assertThat(prompt.id()).isNotBlank();

        ConsumerRecord<String, String> eventRecord = await().atMost(Duration.ofSeconds(60))
                .until(() -> recordsWith(Topics.EVENTS, id), r -> !r.isEmpty()).get(0);
        Event event = Event.parse(eventRecord.value());
        assertThat(List.of(eventRecord.key(), event.team(), event.agent(), event.seq(), event.type()))
                .containsExactly("e2e-lead", "e2e-lead", "lead", 0L, EventType.CRON_FIRED);
        assertThat(Map.of("jobId", event.data().get("jobId").asText(), "dueAt", event.data().get("dueAt").asText(),
                "catchUp", event.data().get("catchUp").asBoolean(), "messageId", event.data().get("messageId").asText()))
                .isEqualTo(Map.of("jobId", id, "dueAt", due.toString(), "catchUp", false, "messageId", prompt.id()));

        JsonPath after = await().atMost(Duration.ofSeconds(60))
                .until(() -> get("e2e-lead", id), j -> j.getInt("fireCount") == 1);
        assertThat(Instant.parse(after.getString("nextFireAt"))).isEqualTo(due.plus(Duration.ofMinutes(2)));
        assertThat(Instant.parse(after.getString("lastFiredAt"))).isAfterOrEqualTo(due).isBefore(due.plus(Duration.ofMinutes(2)));
    }

    @Test
    void aJobForATeammateArrivesOnTheTeammateInboxKeyedByAgent() {
        JsonPath job = create("e2e-mate", "{\"cron\":\"*/5 * * * *\",\"prompt\":\"run the nightly checks\","
                + "\"target\":\"alice\",\"recurring\":false}");
        String id = job.getString("id");
        Instant due = Instant.parse(job.getString("nextFireAt"));

        clock.runFrom(due.minusMillis(300));

        ConsumerRecord<String, String> record = await().atMost(Duration.ofSeconds(60))
                .until(() -> recordsWith(Topics.TEAMMATE_INBOX, id), r -> !r.isEmpty()).get(0);
        assertThat(record.key()).isEqualTo("e2e-mate/alice");
        AgentMessage m = AgentMessage.parse(record.value());
        assertThat(List.of(m.team(), m.from(), m.to(), m.type(), m.content()))
                .containsExactly("e2e-mate", "scheduler", "alice", MessageType.MESSAGE, "[cron] run the nightly checks");
        assertThat(m.metadata()).containsEntry("source", "cron").containsEntry("cronJobId", id)
                .containsEntry("dueAt", due.toString());
        // a one-shot job is gone once its message was acknowledged
        await().atMost(Duration.ofSeconds(60)).until(() -> api().get("/api/v1/teams/e2e-mate/crons/{id}", id).statusCode() == 404);
        assertThat(recordsWith(Topics.PROMPTS, id)).isEmpty();
    }

    private static RequestSpecification api() {
        return given().header("Authorization", "Bearer " + LeadServiceStub.TOKEN).contentType(ContentType.JSON);
    }

    private static JsonPath create(String team, String body) {
        return api().body(body).post("/api/v1/teams/{team}/crons", team).then().statusCode(201).extract().jsonPath();
    }

    private static JsonPath get(String team, String id) {
        return api().get("/api/v1/teams/{team}/crons/{id}", team, id).then().statusCode(200).extract().jsonPath();
    }

    private static List<ConsumerRecord<String, String>> recordsWith(String topic, String jobId) {
        return KafkaTopics.readAll(topic).stream().filter(r -> r.value().contains(jobId)).toList();
    }
}
