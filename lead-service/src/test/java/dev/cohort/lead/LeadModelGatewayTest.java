package dev.cohort.lead;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.llm.GatewayModelClient;
import dev.cohort.core.llm.LlmGateway;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Json;
import dev.cohort.devstack.model.ScriptedModelClient;
import dev.cohort.lead.agent.LeadEngine;
import dev.cohort.lead.events.EventRepository;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * The lead's model calls go through the one {@link LlmGateway} bean (one client per configured model: the test
 * profile configures {@code cohort.llm.fallback-model=scripted-fallback}), and the fallback the engine switches to
 * after overloads is the gateway's, with the provider's {@code retry-after-ms} honoured.
 */
@QuarkusTest
class LeadModelGatewayTest {

    @ConfigProperty(name = "cohort.devstack.model-admin-url", defaultValue = "http://127.0.0.1:1")
    String modelAdmin;

    @Inject
    LlmGateway gateway;

    @Inject
    LeadEngine lead;

    @Inject
    EventRepository events;

    @Test
    void theLeadsEngineCallsTheModelThroughTheOneGatewayBeanWhichHasOneClientPerConfiguredModel() {
        assertThat(lead.engine().model()).isInstanceOfSatisfying(GatewayModelClient.class,
                c -> assertThat(c.gateway()).isSameAs(gateway));
        assertThat(gateway.models()).containsExactly("gpt-4o-mini", "scripted-fallback");
        assertThat(lead.engine().settings().model()).isEqualTo("gpt-4o-mini");
        assertThat(lead.engine().settings().recovery().fallbackModel()).isEqualTo("scripted-fallback");
    }

    @Test
    void afterThreeOverloadsTheLeadAnswersOnTheGatewaysFallbackHonouringRetryAfter() {
        String team = LeadAgentTest.newTeam("fallback");
        ScriptedModelClient model = new ScriptedModelClient(modelAdmin);
        model.load("""
                {"rules":[%2$s,
                  {"name":"busy-%1$s","match":{"agent":"%1$s/lead","model":"gpt-4o-mini"},
                   "reply":{"error":{"preset":"overloaded","retryAfterMs":"5"}}},
                  {"name":"backup-%1$s","match":{"agent":"%1$s/lead","model":"scripted-fallback"},
                   "reply":{"text":"answered by {{model}}"}}
                ]}""".formatted(team, ModelRules.MEMORY_RULE));
        String id = LeadAgentTest.prompt(team, "are you there?");

        List<JsonNode> all = await().atMost(Duration.ofSeconds(120)).until(() -> stored(team),
                l -> l.stream().anyMatch(e -> e.path("type").asText().equals("turn_completed")
                        && id.equals(e.path("promptId").asText())));

        assertThat(all).filteredOn(e -> e.path("type").asText().equals("assistant_message"))
                .extracting(e -> e.path("data").path("text").asText()).containsExactly("answered by scripted-fallback");
        List<JsonNode> retries = all.stream().filter(e -> e.path("type").asText().equals("model_retry")).toList();
        assertThat(retries).extracting(e -> e.path("data").path("action").asText())
                .containsExactly("retry", "retry", "fallback", "retry");
        assertThat(retries).filteredOn(e -> e.path("data").path("action").asText().equals("retry"))
                .extracting(e -> e.path("data").path("delayMs").asLong()).containsOnly(5L);
        assertThat(retries).filteredOn(e -> e.path("data").path("action").asText().equals("fallback")).singleElement()
                .satisfies(e -> assertThat(e.path("data").path("to").asText()).isEqualTo("scripted-fallback"));
        assertThat(model.requests().stream().filter(r -> (team + "/lead").equals(r.path("agent").asText()))
                .filter(r -> !ModelRules.isMemoryRequest(r)).map(r -> r.path("model").asText()).toList())
                .containsExactly("gpt-4o-mini", "gpt-4o-mini", "gpt-4o-mini", "scripted-fallback");
    }

    private List<JsonNode> stored(String team) {
        return events.after(team, 0, 10_000).stream().map(LeadModelGatewayTest::json).toList();
    }

    static JsonNode json(Event e) {
        return Json.MAPPER.valueToTree(e);
    }
}
