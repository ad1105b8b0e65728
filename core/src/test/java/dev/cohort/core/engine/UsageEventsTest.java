package dev.cohort.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.testing.ScriptedModelTestBase;
import dev.cohort.core.tools.AgentRole;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/**
 * Every model call's {@code assistant_message} names the model, the cached prompt tokens the provider reported
 * ({@code usage.prompt_tokens_details.cached_tokens}, read through langchain4j over HTTP) and the call's cost;
 * {@code turn_completed} sums them.
 */
class UsageEventsTest extends ScriptedModelTestBase {
    @TempDir
    Path dir;

    private EngineHarness.Events run(EngineSettings settings) {
        model.load("""
                {"rules":[
                 {"match":{"call":1},"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo 1"}}],
                   "usage":{"prompt_tokens":1000,"completion_tokens":100,"cached_tokens":400}}},
                 {"match":{"call":2},"reply":{"text":"done","usage":{"prompt_tokens":2000,"completion_tokens":50}}}]}""");
        EngineHarness.Events events = new EngineHarness.Events();
        AgentSession s = EngineHarness.engine(EngineHarness.modelClient(model), events, List.of()).settings(settings)
                .build().open(AgentContext.of("default", "lead", AgentRole.LEAD, new LocalWorkspace(dir)), null);
        assertThat(s.run("work").reason()).isEqualTo(StopReason.COMPLETED);
        return events;
    }

    @Test
    void assistantMessagesCarryModelCachedTokensAndCostAndTheTurnSumsThem() {
        EngineSettings settings = EngineSettings.defaults()
                .withPrices(Map.of("scripted", new EngineSettings.ModelPrice(1.0, 2.0, 0.5)));
        EngineHarness.Events events = run(settings);

        List<JsonNode> msgs = events.dataOf(EventType.ASSISTANT_MESSAGE);
        assertThat(msgs).hasSize(2);
        JsonNode first = msgs.get(0);
        assertThat(first.path("model").asText()).isEqualTo("scripted");
        assertThat(first.path("inputTokens").asLong()).isEqualTo(1000);
        assertThat(first.path("outputTokens").asLong()).isEqualTo(100);
        assertThat(first.path("cachedTokens").asLong()).isEqualTo(400);
        // 600 uncached at 1.0, 400 cached at 0.5, 100 completion at 2.0 (per million)
        double firstCost = (600 * 1.0 + 400 * 0.5 + 100 * 2.0) / 1_000_000;
        assertThat(first.path("costUsd").asDouble()).isCloseTo(firstCost, offset(1e-12));
        JsonNode second = msgs.get(1);
        assertThat(second.path("cachedTokens").asLong()).as("no details from the provider").isZero();
        double secondCost = (2000 * 1.0 + 50 * 2.0) / 1_000_000;
        assertThat(second.path("costUsd").asDouble()).isCloseTo(secondCost, offset(1e-12));

        JsonNode done = events.dataOf(EventType.TURN_COMPLETED).getFirst();
        assertThat(done.path("usage").path("inputTokens").asLong()).isEqualTo(3000);
        assertThat(done.path("usage").path("cachedTokens").asLong()).isEqualTo(400);
        assertThat(done.path("usage").path("costUsd").asDouble()).isCloseTo(firstCost + secondCost, offset(1e-12));
        assertThat(done.path("agentUsage").path("cachedTokens").asLong()).isEqualTo(400);
    }

    @Test
    void withoutAPriceTheCostIsZeroAndWithoutACachedPriceCachedTokensCostTheInputPrice() {
        JsonNode free = run(EngineSettings.defaults().withPrices(Map.of())).dataOf(EventType.ASSISTANT_MESSAGE).get(0);
        assertThat(free.path("costUsd").asDouble()).isZero();
        assertThat(free.path("cachedTokens").asLong()).isEqualTo(400);

        model.reset();
        JsonNode flat = run(EngineSettings.defaults()
                .withPrices(Map.of("scripted", new EngineSettings.ModelPrice(1.0, 2.0))))
                .dataOf(EventType.ASSISTANT_MESSAGE).get(0);
        assertThat(flat.path("costUsd").asDouble()).isCloseTo((1000 * 1.0 + 100 * 2.0) / 1_000_000, offset(1e-12));
    }

    @Test
    void cacheWritesTheWireReportsArePricedAtTheCacheWritePriceAndSummedByTheTurn() {
        EngineSettings settings = EngineSettings.defaults()
                .withPrices(Map.of("scripted", new EngineSettings.ModelPrice(1.0, 2.0, 0.5, 1.25)));
        EngineHarness.Events events = run(settings);
        List<JsonNode> msgs = events.dataOf(EventType.ASSISTANT_MESSAGE);
        // Anthropic's wire reports the prompt tokens it did not read from the cache as written to it (the scripted
        // server's prompt caching); OpenAI's reports no cache writes
        long firstWrite = EngineHarness.anthropicWire() ? 600 : 0;
        long secondWrite = EngineHarness.anthropicWire() ? 2000 - msgs.get(1).path("cachedTokens").asLong() : 0;
        assertThat(msgs.get(0).path("cacheWriteTokens").asLong()).isEqualTo(firstWrite);
        assertThat(msgs.get(1).path("cacheWriteTokens").asLong()).isEqualTo(secondWrite);
        assertThat(msgs.get(0).path("priceKnown").asBoolean()).isTrue();
        double firstCost = ((1000 - 400 - firstWrite) * 1.0 + 400 * 0.5 + firstWrite * 1.25 + 100 * 2.0) / 1_000_000;
        assertThat(msgs.get(0).path("costUsd").asDouble()).isCloseTo(firstCost, offset(1e-12));

        JsonNode done = events.dataOf(EventType.TURN_COMPLETED).getFirst();
        assertThat(done.path("usage").path("cacheWriteTokens").asLong()).isEqualTo(firstWrite + secondWrite);
        assertThat(done.path("agentUsage").path("cacheWriteTokens").asLong()).isEqualTo(firstWrite + secondWrite);
        assertThat(done.path("usage").path("unpricedCalls").asLong()).isZero();
    }

    @Test
    void aModelWithoutAnyPriceIsReportedAsUnknownPriceNotAsFree() {
        EngineHarness.Events events = run(EngineSettings.defaults().withPrices(Map.of()));
        JsonNode first = events.dataOf(EventType.ASSISTANT_MESSAGE).get(0);
        assertThat(first.path("priceKnown").asBoolean(true)).isFalse();
        JsonNode done = events.dataOf(EventType.TURN_COMPLETED).getFirst();
        assertThat(done.path("usage").path("unpricedCalls").asLong()).isEqualTo(2);
        assertThat(done.path("agentUsage").path("unpricedCalls").asLong()).isEqualTo(2);
        assertThat(events.dataOf(EventType.BUDGET_WARNING)).as("no USD budget set: nothing to warn of").isEmpty();
    }

    @Test
    void withAUsdBudgetSetAModelWithoutAPriceWarnsOnceThatTheBudgetCannotLimitIt() {
        EngineHarness.Events events = run(EngineSettings.defaults().withPrices(Map.of())
                .withBudgets(new Budgets(0, 0, 0, 1.0, 0, 0)));
        List<JsonNode> warnings = events.dataOf(EventType.BUDGET_WARNING);
        assertThat(warnings).singleElement().satisfies(w -> {
            assertThat(w.path("budget").asText()).isEqualTo("costPerTurnUsd");
            assertThat(w.path("message").asText()).startsWith("Unknown price: model scripted has no price");
        });
    }

    @Test
    void aSavedUsageWithoutCachedTokensReadsBackWithZeroAndNewOnesRoundTrip() {
        Usage old = Json.read(
                "{\"inputTokens\":10,\"outputTokens\":2,\"calls\":1,\"costUsd\":0.5}", Usage.class);
        assertThat(old).isEqualTo(new Usage(10, 2, 1, 0.5, 0));
        Usage now = new Usage(10, 2, 1, 0.5, 4).plus(new Usage(1, 1, 1, 0, 1));
        assertThat(Json.read(Json.write(now), Usage.class))
                .isEqualTo(new Usage(11, 3, 2, 0.5, 5));
        Usage full = new Usage(11, 3, 2, 0.5, 5, 7, 1);
        assertThat(Json.read(Json.write(full), Usage.class)).isEqualTo(full);
    }
}
