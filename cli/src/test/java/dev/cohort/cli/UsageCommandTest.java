package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.protocol.Json;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code cohort usage}: the usage endpoint's answer as a table, and its options. */
class UsageCommandTest {

    @Test
    void perAgentOneRowEachThenTheTotal() throws Exception {
        var report = Json.MAPPER.readTree("""
                {"team":"default","by":"agent","rows":[
                  {"key":"alice","agent":"alice","modelCalls":2,"promptTokens":1200,"completionTokens":120,"cachedTokens":100,"costUsd":0.0325},
                  {"key":"lead","agent":"lead","modelCalls":3,"promptTokens":2200,"completionTokens":20,"cachedTokens":0,"costUsd":0}],
                 "total":{"modelCalls":5,"promptTokens":3400,"completionTokens":140,"cachedTokens":100,"costUsd":0.0325}}""");
        assertThat(UsageCommand.table(report)).containsExactly(
                "AGENT  CALLS  PROMPT  COMPLETION  CACHED  CACHE-WRITE  COST",
                "alice  2      1200    120         100     0            $0.0325",
                "lead   3      2200    20          0       0            $0.0000",
                "TOTAL  5      3400    140         100     0            $0.0325");
    }

    @Test
    void perTurnNamesTheAgentAndPerDayTheDay() throws Exception {
        var turns = Json.MAPPER.readTree("""
                {"by":"turn","rows":[{"key":"turn-1","agent":"lead","turnId":"turn-1","modelCalls":1,"promptTokens":10,
                  "completionTokens":1,"cachedTokens":0,"costUsd":0.5}],
                 "total":{"modelCalls":1,"promptTokens":10,"completionTokens":1,"cachedTokens":0,"costUsd":0.5}}""");
        assertThat(UsageCommand.table(turns)).containsExactly(
                "TURN    AGENT  CALLS  PROMPT  COMPLETION  CACHED  CACHE-WRITE  COST",
                "turn-1  lead   1      10      1           0       0            $0.5000",
                "TOTAL          1      10      1           0       0            $0.5000");
        var days = Json.MAPPER.readTree("""
                {"by":"day","rows":[{"key":"2026-12-02","day":"2026-12-02","modelCalls":4,"promptTokens":40,
                  "completionTokens":4,"cachedTokens":8,"costUsd":0}],
                 "total":{"modelCalls":4,"promptTokens":40,"completionTokens":4,"cachedTokens":8,"costUsd":0}}""");
        assertThat(UsageCommand.table(days).getFirst()).startsWith("DAY         CALLS");
        assertThat(UsageCommand.table(days).get(1)).startsWith("2026-12-02  4");
    }

    @Test
    void noCallsSaysSo() throws Exception {
        var report = Json.MAPPER.readTree("""
                {"team":"t","by":"agent","rows":[],"total":{"modelCalls":0,"promptTokens":0,"completionTokens":0,
                 "cachedTokens":0,"costUsd":0}}""");
        assertThat(UsageCommand.table(report)).containsExactly(
                "AGENT  CALLS  PROMPT  COMPLETION  CACHED  CACHE-WRITE  COST", "(no model calls)");
    }

    @Test
    void callsWithoutAPriceShowUnknownPriceNotZeroDollarsAndCacheWritesHaveTheirColumn() throws Exception {
        var report = Json.MAPPER.readTree("""
                {"team":"default","by":"agent","rows":[
                  {"key":"alice","agent":"alice","modelCalls":2,"promptTokens":5000,"completionTokens":100,
                   "cachedTokens":3000,"cacheWriteTokens":1500,"costUsd":0.0042,"priceKnown":true,"unpricedCalls":0,
                   "unpricedModels":[]},
                  {"key":"bob","agent":"bob","modelCalls":1,"promptTokens":900,"completionTokens":30,
                   "cachedTokens":0,"cacheWriteTokens":0,"costUsd":0,"priceKnown":false,"unpricedCalls":1,
                   "unpricedModels":["my-local-model"]}],
                 "total":{"modelCalls":3,"promptTokens":5900,"completionTokens":130,"cachedTokens":3000,
                   "cacheWriteTokens":1500,"costUsd":0.0042,"priceKnown":false,"unpricedCalls":1,
                   "unpricedModels":["my-local-model"]}}""");
        assertThat(UsageCommand.table(report)).containsExactly(
                "AGENT  CALLS  PROMPT  COMPLETION  CACHED  CACHE-WRITE  COST",
                "alice  2      5000    100         3000    1500         $0.0042",
                "bob    1      900     30          0       0            unknown price",
                "TOTAL  3      5900    130         3000    1500         $0.0042 + unknown",
                "unknown price: my-local-model has no price; set cohort.engine.prices.\"<model>\".*");
    }

    @Test
    void anUnknownGroupingIsRefusedBeforeAnyRequestNamingTheChoices() {
        StringWriter err = new StringWriter();
        int code = new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true)
                .setErr(new PrintWriter(err)).execute("usage", "--by", "week", "--url", "http://127.0.0.1:1");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("--by").contains("week").contains("agent, turn, day");
    }

    @Test
    void aServiceThatDoesNotAnswerIsOneLineAndExitCode2() {
        int code = new CommandLine(new Main()).execute("usage", "--team", "t", "--url", "http://127.0.0.1:1",
                "--token", "x");
        assertThat(code).isEqualTo(ApiCommand.REQUEST_FAILED);
    }
}
