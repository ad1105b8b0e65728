package dev.cohort.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import dev.cohort.core.llm.AnthropicMessagesWire;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The built-in price table (its date, its models, how a name is matched), configured prices overriding it per model,
 * and the cost of one call's uncached, cache-read, cache-written and output tokens, each counted once.
 */
class ModelPricesTest {

    private static EngineSettings.ModelPrice price(double in, double out, double read, double write) {
        return new EngineSettings.ModelPrice(in, out, read, write);
    }

    @Test
    void theBuiltInTableIsDatedNamesItsSourceAndPricesTheCommonModelsOfBothProviders() {
        ModelPrices table = ModelPrices.builtin();
        assertThat(LocalDate.parse(table.asOf())).isAfterOrEqualTo(LocalDate.of(2026, 12, 1));
        assertThat(table.source()).contains("LiteLLM").contains("model_prices_and_context_window.json");
        // Anthropic: cache reads at 0.1 x input, 5-minute cache writes at 1.25 x input
        assertThat(table.find("claude-sonnet-4-5")).contains(price(3, 15, 0.3, 3.75));
        assertThat(table.find("claude-haiku-4-5")).contains(price(1, 5, 0.1, 1.25));
        assertThat(table.find("claude-opus-4-5")).contains(price(5, 25, 0.5, 6.25));
        // OpenAI: the cached-input price, and cache writes at the input price
        assertThat(table.find("gpt-4.1")).contains(price(2, 8, 0.5, 2));
        assertThat(table.find("gpt-4o-mini")).contains(price(0.15, 0.6, 0.075, 0.15));
        assertThat(table.find("gpt-5")).contains(price(1.25, 10, 0.125, 1.25));
        assertThat(table.find("gpt-5-mini-2025-08-07")).contains(price(0.25, 2, 0.025, 0.25));
        for (String m : List.of("claude-opus-4-8", "claude-sonnet-4-6", "claude-sonnet-5", "gpt-4.1-mini", "gpt-4o",
                "gpt-5.2")) {
            assertThat(table.find(m)).as(m).isPresent();
        }
        table.prices().forEach((m, p) -> {
            assertThat(p.outputPerMillion()).as(m).isGreaterThan(p.inputPerMillion());
            assertThat(p.cacheReadPerMillion()).as(m).isLessThan(p.inputPerMillion());
            assertThat(p.cacheWritePerMillion()).as(m).isGreaterThanOrEqualTo(p.inputPerMillion());
        });
    }

    @Test
    void aNameMatchesExactlyThenWithoutItsProviderPrefixThenWithoutItsDatedSuffix() {
        ModelPrices table = ModelPrices.builtin();
        EngineSettings.ModelPrice sonnet = table.find("claude-sonnet-4-5").orElseThrow();
        assertThat(table.find("claude-sonnet-4-5-20250929")).contains(sonnet);
        assertThat(table.find("anthropic/claude-sonnet-4-5")).contains(sonnet);
        assertThat(table.find("Anthropic/Claude-Sonnet-4-5-20250929")).contains(sonnet);
        assertThat(table.find("openai/gpt-4o-2024-08-06")).isEqualTo(table.find("gpt-4o"));
        // a longer name is another model, never its prefix's
        assertThat(table.find("gpt-4o-mini-2024-07-18")).isEqualTo(table.find("gpt-4o-mini"));
        assertThat(table.find("claude-sonnet-4-5-turbo")).isEmpty();
        assertThat(table.find("scripted")).isEmpty();
        assertThat(table.find("")).isEmpty();
        assertThat(table.find(null)).isEmpty();
        assertThat(ModelPrices.candidates("openai/gpt-4.1-2025-04-14")).containsExactly("gpt-4.1-2025-04-14",
                "gpt-4.1");
    }

    @Test
    void aTableIsReadWithMissingCachePricesAtTheInputPrice() {
        ModelPrices t = ModelPrices.load(new ByteArrayInputStream("""
                {"asOf":"2026-12-01","source":"a test","models":{
                  "m1":{"input":2,"output":4},"m2":{"input":1,"output":3,"cacheRead":0.5,"cacheWrite":1.5}}}"""
                .getBytes(StandardCharsets.UTF_8)));
        assertThat(t.asOf()).isEqualTo("2026-12-01");
        assertThat(t.prices()).containsExactlyInAnyOrderEntriesOf(Map.of("m1", price(2, 4, 2, 2),
                "m2", price(1, 3, 0.5, 1.5)));
    }

    @Test
    void aConfiguredPriceOverridesTheTablePerModelAndOtherModelsKeepTheTables() {
        EngineSettings s = EngineSettings.defaults().withPrices(Map.of("claude-sonnet-4-5", price(1, 2, 0.1, 1.5),
                "my-local-model", new EngineSettings.ModelPrice(0.5, 1)));
        assertThat(s.price("claude-sonnet-4-5-20250929")).contains(price(1, 2, 0.1, 1.5));
        assertThat(s.price("anthropic/claude-sonnet-4-5")).contains(price(1, 2, 0.1, 1.5));
        assertThat(s.price("claude-haiku-4-5")).isEqualTo(ModelPrices.builtin().find("claude-haiku-4-5"));
        assertThat(s.price("my-local-model")).contains(price(0.5, 1, 0.5, 0.5));
        assertThat(s.price("scripted")).isEmpty();
        // a reply that names no known model falls back to the configured model's price
        assertThat(s.withModel("claude-haiku-4-5").price("scripted"))
                .isEqualTo(ModelPrices.builtin().find("claude-haiku-4-5"));
        assertThat(EngineSettings.defaults().price("claude-opus-4-5")).as("no configuration: the table")
                .isEqualTo(ModelPrices.builtin().find("claude-opus-4-5"));
    }

    @Test
    void eachInputTokenIsCountedOnceAtItsPriceUncachedReadOrWritten() {
        EngineSettings.ModelPrice p = price(3, 15, 0.3, 3.75);
        // 10,000 prompt tokens of which 6,000 read from and 3,000 written to the cache: 1,000 uncached
        double expected = (1_000 * 3 + 6_000 * 0.3 + 3_000 * 3.75 + 500 * 15) / 1_000_000.0;
        assertThat(p.cost(10_000, 500, 6_000, 3_000)).isCloseTo(expected, offset(1e-12));
        assertThat(p.cost(1_000_000, 0, 0, 0)).isCloseTo(3.0, offset(1e-12));
        assertThat(p.cost(0, 1_000_000, 0, 0)).isCloseTo(15.0, offset(1e-12));
        // figures a provider got wrong never make a negative share
        assertThat(p.cost(100, 0, 80, 80)).isCloseTo((80 * 0.3 + 20 * 3.75) / 1_000_000.0, offset(1e-12));
    }

    @Test
    void anAnthropicReplysCacheWritesReachTheCallsUsageAndCostTheCacheWritePrice() {
        ModelClient.Reply reply = AnthropicMessagesWire.reply("""
                {"model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn",
                 "usage":{"input_tokens":12,"cache_creation_input_tokens":300,"cache_read_input_tokens":4000,
                          "output_tokens":40}}""".getBytes(StandardCharsets.UTF_8));
        Usage u = EngineSettings.defaults().usageOf(reply);
        assertThat(u).isEqualTo(new Usage(4312, 40, 1, (12 * 3 + 4000 * 0.3 + 300 * 3.75 + 40 * 15) / 1_000_000.0,
                4000, 300, 0));
        assertThat(u.priceKnown()).isTrue();
    }

    @Test
    void aModelWithoutAnyPriceIsAnUnpricedCallNotAFreeOne() {
        Usage u = EngineSettings.defaults().usageOf(new ModelClient.Reply("hi", List.of(), "stop", 1000, 10,
                "my-own-model", 0));
        assertThat(u).isEqualTo(new Usage(1000, 10, 1, 0, 0, 0, 1));
        assertThat(u.priceKnown()).isFalse();
        assertThat(u.plus(new Usage(1, 1, 1, 0.5, 0, 0, 0))).isEqualTo(new Usage(1001, 11, 2, 0.5, 0, 0, 1));
    }
}
