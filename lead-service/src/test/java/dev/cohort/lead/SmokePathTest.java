package dev.cohort.lead;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.Topics;
import dev.cohort.devstack.model.ScriptedModelClient;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import java.time.Duration;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The foundation's smoke path through real parts: HTTP prompt → {@code cohort.prompts} → lead consumer → one model
 * call (scripted model over HTTP) → events stored and published on {@code cohort.events} → SSE with resume.
 */
@QuarkusTest
class SmokePathTest {

    @ConfigProperty(name = "cohort.devstack.model-admin-url", defaultValue = "http://127.0.0.1:1")
    String modelAdmin;

    @TestHTTPResource("/api/v1/teams/default/events")
    URL eventsUrl;

    ScriptedModelClient model;

    @BeforeEach
    void scenario() {
        model = new ScriptedModelClient(modelAdmin);
        model.reset();
        model.load("""
                {"rules":[{"name":"greet","match":{"agent":"default/lead","lastMessage":"^hi$"},
                           "reply":{"text":"Hello from the scripted model"}},%s]}
                """.formatted(ModelRules.MEMORY_RULE));
    }

    @Test
    void promptOverHttpRunsOneModelCallAndStreamsItsEventsOverSse() {
        String id = given().contentType("application/json").body("{\"text\":\"hi\"}")
                .post("/api/v1/teams/default/prompts")
                .then().statusCode(202).extract().path("id");

        try (SseClient sse = SseClient.open(eventsUrl.toString(), null)) {
            await().atMost(Duration.ofMinutes(3)).until(() -> eventsOf(sse, id).stream()
                    .anyMatch(e -> e.get("type").asText().equals("turn_completed")));
            List<JsonNode> mine = eventsOf(sse, id);
            assertThat(mine).extracting(e -> e.get("type").asText())
                    .containsExactly("turn_started", "assistant_message", "turn_completed");
            assertThat(mine.get(1).get("data").get("text").asText()).isEqualTo("Hello from the scripted model");
            assertThat(mine.get(2).get("data").get("status").asText()).isEqualTo("completed");
            assertThat(mine).allSatisfy(e -> assertThat(e.get("agent").asText()).isEqualTo("lead"));
            // seq numbers are consecutive for the team and equal the SSE ids
            long first = mine.get(0).get("seq").asLong();
            assertThat(mine).extracting(e -> e.get("seq").asLong()).containsExactly(first, first + 1, first + 2);

            // resume: a new client with Last-Event-ID = turn_started's seq gets everything after it, once, in order
            try (SseClient resumed = SseClient.open(eventsUrl.toString(), Long.toString(first))) {
                await().atMost(Duration.ofMinutes(3)).until(() -> resumed.received().size() >= 2);
                List<SseClient.Received> got = resumed.received();
                assertThat(got.get(0).id()).isEqualTo(Long.toString(first + 1));
                assertThat(got.get(0).event()).isEqualTo("assistant_message");
                assertThat(got.get(1).id()).isEqualTo(Long.toString(first + 2));
                assertThat(got).extracting(SseClient.Received::id).doesNotHaveDuplicates();
            }
        }

        // the model was called exactly once for this agent, with the prompt as the last message (other tests' teams
        // may still be finishing inbox turns of their own, e.g. a background job's completion, in the same boot)
        List<JsonNode> requests = model.requests().stream().filter(r -> !ModelRules.isMemoryRequest(r))
                .filter(r -> "default/lead".equals(r.path("body").path("user").asText())).toList();
        assertThat(requests).hasSize(1);
        JsonNode body = requests.get(0).get("body");
        assertThat(body.get("user").asText()).isEqualTo("default/lead");
        JsonNode messages = body.get("messages");
        assertThat(messages.get(messages.size() - 1).get("content").asText()).isEqualTo("hi");

        // and the events are on the broker for any other consumer
        var records = TestKafka.readUntil(Topics.EVENTS,
                r -> r.value().contains(id) && r.value().contains("\"turn_completed\""), Duration.ofSeconds(20));
        assertThat(records).filteredOn(r -> r.value().contains(id)).extracting(r -> r.key()).containsOnly("default");
        assertThat(records).filteredOn(r -> r.value().contains(id)).hasSize(3);
    }

    @Test
    void aModelErrorThatCannotBeRetriedEndsTheTurnWithAClearErrorEvent() {
        model.load("""
                {"rules":[{"name":"down","match":{"lastMessage":"^boom$"},
                           "reply":{"error":{"status":401,"message":"scripted bad key"}}},%s]}
                """.formatted(ModelRules.MEMORY_RULE));
        String id = given().contentType("application/json").body("{\"text\":\"boom\"}")
                .post("/api/v1/teams/default/prompts").then().statusCode(202).extract().path("id");
        try (SseClient sse = SseClient.open(eventsUrl.toString(), null)) {
            await().atMost(Duration.ofMinutes(3)).until(() -> eventsOf(sse, id).stream()
                    .anyMatch(e -> e.get("type").asText().equals("turn_completed")));
            List<JsonNode> mine = eventsOf(sse, id);
            assertThat(mine).extracting(e -> e.get("type").asText()).containsExactly("turn_started", "error", "turn_completed");
            assertThat(mine.get(1).get("data").get("message").asText()).contains("401");
            assertThat(mine.get(2).get("data").get("status").asText()).isEqualTo("failed");
        }
    }

    static List<JsonNode> eventsOf(SseClient sse, String promptId) {
        return sse.received().stream().map(r -> {
            try {
                return Json.MAPPER.readTree(r.data());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).filter(e -> promptId.equals(e.path("promptId").asText())).toList();
    }
}
