package dev.cohort.lead;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import dev.cohort.core.protocol.Topics;
import dev.cohort.devstack.model.ScriptedModelClient;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/** Bad input gets a clear error and loses nothing: HTTP problems and poison Kafka records. */
@QuarkusTest
class BadInputTest {

    @ConfigProperty(name = "cohort.devstack.model-admin-url", defaultValue = "http://127.0.0.1:1")
    String modelAdmin;

    @Test
    void malformedJsonIsA400Problem() {
        given().contentType("application/json").body("{\"text\": ")
                .post("/api/v1/teams/default/prompts")
                .then().statusCode(400)
                .contentType("application/problem+json")
                .body("status", equalTo(400))
                .body("detail", containsString("malformed JSON"));
    }

    @Test
    void aBodyOfTheWrongShapeIsA400ProblemNamingTheFieldAndCreatesNothing() {
        given().contentType("application/json").body("{\"id\": 42}").post("/api/v1/teams")
                .then().statusCode(400).contentType("application/problem+json")
                .body("detail", containsString("field 'id' has the wrong type (expected a string)"));
        given().get("/api/v1/teams/42").then().statusCode(404);
        given().contentType("application/json").body("{\"id\": [\"a\"]}").post("/api/v1/teams")
                .then().statusCode(400).contentType("application/problem+json").body("detail", containsString("'id'"));
        given().contentType("application/json").body("{\"text\": {\"a\": 1}}").post("/api/v1/teams/default/prompts")
                .then().statusCode(400).contentType("application/problem+json").body("detail", containsString("'text'"));
        given().contentType("application/json").body("[\"text\"]").post("/api/v1/teams/default/prompts")
                .then().statusCode(400).contentType("application/problem+json")
                .body("detail", containsString("the request body has the wrong type"));
        given().contentType("application/json").body("{\"content\": [1, 2]}")
                .post("/api/v1/teams/default/agents/lead/messages")
                .then().statusCode(400).contentType("application/problem+json").body("detail", containsString("'content'"));
    }

    @Test
    void unknownTeamIsA404Problem() {
        given().contentType("application/json").body("{\"text\":\"hi\"}")
                .post("/api/v1/teams/no-such-team/prompts")
                .then().statusCode(404)
                .contentType("application/problem+json")
                .body("detail", equalTo("unknown team \"no-such-team\""));
        given().get("/api/v1/teams/no-such-team").then().statusCode(404).contentType("application/problem+json");
        given().get("/api/v1/teams/no-such-team/events").then().statusCode(404).contentType("application/problem+json");
    }

    @Test
    void blankAndOversizedPromptsAreRefused() {
        given().contentType("application/json").body("{\"text\":\"  \"}")
                .post("/api/v1/teams/default/prompts")
                .then().statusCode(400).contentType("application/problem+json").body("detail", containsString("text"));
        String huge = "x".repeat(1_000_001);
        given().contentType("application/json").body("{\"text\":\"" + huge + "\"}")
                .post("/api/v1/teams/default/prompts")
                .then().statusCode(413).contentType("application/problem+json").body("detail", containsString("1000000"));
    }

    @Test
    void poisonRecordsGoToTheDlqAndTheNextRecordIsStillProcessed() {
        ScriptedModelClient model = new ScriptedModelClient(modelAdmin);
        model.reset();
        String marker = "after-poison-" + UUID.randomUUID();
        model.load("{\"rules\":[{\"name\":\"after\",\"match\":{\"lastMessage\":\"" + marker + "\"},\"reply\":{\"text\":\"ok\"}},"
                + ModelRules.MEMORY_RULE + "]}");

        String poison = "{\"team\":\"default\",\"text\": " + UUID.randomUUID();
        TestKafka.send(Topics.PROMPTS, "default", poison);
        // plain text is a valid prompt when the key names the team; this one comes right after the poison
        TestKafka.send(Topics.PROMPTS, "default", marker);

        var dlq = TestKafka.readUntil(Topics.DLQ, r -> poison.equals(r.value()), Duration.ofSeconds(30));
        ConsumerRecord<String, String> dead = dlq.stream().filter(r -> poison.equals(r.value())).findFirst().orElseThrow();
        assertThat(dead.key()).isEqualTo("default");
        String reason = new String(dead.headers().lastHeader(Topics.DLQ_HEADER_REASON).value(), StandardCharsets.UTF_8);
        assertThat(reason).contains("prompt record is not valid JSON");

        await().atMost(Duration.ofMinutes(3)).until(() -> model.requests().stream()
                .anyMatch(r -> r.toString().contains(marker)));
    }

    @Test
    void aPlainTextRecordWithoutKeyAndOneForAnUnknownTeamAreDeadLettered() {
        String noKey = "no key " + UUID.randomUUID();
        TestKafka.send(Topics.PROMPTS, null, noKey);
        String unknownTeam = "{\"team\":\"ghost-team\",\"text\":\"" + UUID.randomUUID() + "\"}";
        TestKafka.send(Topics.PROMPTS, "ghost-team", unknownTeam);
        // the two records sit in different partitions, so they may reach the DLQ in either order: wait for both
        Set<String> seen = ConcurrentHashMap.newKeySet();
        var dlq = TestKafka.readUntil(Topics.DLQ, r -> {
            seen.add(r.value());
            return seen.contains(unknownTeam) && seen.contains(noKey);
        }, Duration.ofSeconds(30));
        assertThat(dlq).filteredOn(r -> noKey.equals(r.value())).singleElement()
                .satisfies(r -> assertThat(new String(r.headers().lastHeader(Topics.DLQ_HEADER_REASON).value(),
                        StandardCharsets.UTF_8)).contains("needs the team id as its key"));
        assertThat(dlq).filteredOn(r -> unknownTeam.equals(r.value())).singleElement()
                .satisfies(r -> assertThat(new String(r.headers().lastHeader(Topics.DLQ_HEADER_REASON).value(),
                        StandardCharsets.UTF_8)).contains("unknown team \"ghost-team\""));
    }

    @Test
    void aControlMessageWithAnUnknownOrMissingActionIsDeadLetteredNamingTheProblem() {
        String unknownAction = "{\"id\":\"" + UUID.randomUUID() + "\",\"team\":\"default\",\"from\":\"api\",\"to\":\"lead\","
                + "\"type\":\"control\",\"content\":\"\",\"metadata\":{\"action\":\"teleport\"}}";
        String noAction = "{\"id\":\"" + UUID.randomUUID() + "\",\"team\":\"default\",\"from\":\"api\",\"to\":\"lead\","
                + "\"type\":\"control\",\"content\":\"\",\"metadata\":{}}";
        TestKafka.send(Topics.LEAD_INBOX, "default", unknownAction);
        TestKafka.send(Topics.LEAD_INBOX, "default", noAction);
        Set<String> seen = ConcurrentHashMap.newKeySet();
        var dlq = TestKafka.readUntil(Topics.DLQ, r -> {
            seen.add(r.value());
            return seen.contains(unknownAction) && seen.contains(noAction);
        }, Duration.ofSeconds(30));
        assertThat(dlq).filteredOn(r -> unknownAction.equals(r.value())).singleElement()
                .satisfies(r -> assertThat(new String(r.headers().lastHeader(Topics.DLQ_HEADER_REASON).value(),
                        StandardCharsets.UTF_8)).contains("unknown control action \"teleport\"; known: interrupt"));
        assertThat(dlq).filteredOn(r -> noAction.equals(r.value())).singleElement()
                .satisfies(r -> assertThat(new String(r.headers().lastHeader(Topics.DLQ_HEADER_REASON).value(),
                        StandardCharsets.UTF_8)).contains("has no \"action\"; known: [interrupt, approval_resolved]"));
    }
}
