package dev.cohort.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cohort.cli.bench.PromptCache.Request;
import dev.cohort.cli.bench.PromptCache.Wire;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The prompt-cache figure: the prompt in the provider's order, the shared prefix of two rounds, the tally. */
class PromptCacheTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static Request request(Wire wire, String body) {
        return Request.of(wire, body.getBytes(StandardCharsets.UTF_8), null);
    }

    @Test
    void thePromptIsToolsThenSystemThenConversationWithoutCacheMarkersWhateverTheBodysFieldOrder() throws Exception {
        String body = "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\","
                + "\"cache_control\":{\"type\":\"ephemeral\"}}]}],\"model\":\"m\",\"system\":\"be brief\","
                + "\"tools\":[{\"name\":\"Bash\",\"cache_control\":{\"type\":\"ephemeral\"}}]}";

        assertThat(PromptCache.prompt(Wire.MESSAGES, JSON.readTree(body))).isEqualTo(
                "[{\"name\":\"Bash\"}]\n\"be brief\"\n[{\"role\":\"user\",\"content\":\"hi\"}]");
        assertThat(PromptCache.prompt(Wire.RESPONSES, JSON.readTree("{\"input\":[1],\"instructions\":\"i\",\"tools\":[2]}")))
                .isEqualTo("[2]\n\"i\"\n[1]");
        assertThat(PromptCache.prompt(Wire.CHAT_COMPLETIONS, JSON.readTree("{\"messages\":[1],\"stream\":false,\"tools\":[2]}")))
                .isEqualTo("[2]\n[1]");
    }

    @Test
    void aContentOfOneTextBlockIsTheStringItStandsForExceptOnTheResponsesWire() throws Exception {
        String asString = "{\"system\":\"s\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        String asBlocks = "{\"system\":[{\"type\":\"text\",\"text\":\"s\"}],\"messages\":[{\"role\":\"user\",\"content\":"
                + "[{\"type\":\"text\",\"text\":\"hi\",\"cache_control\":{\"type\":\"ephemeral\"}}]}]}";

        assertThat(PromptCache.prompt(Wire.MESSAGES, JSON.readTree(asString)))
                .isEqualTo(PromptCache.prompt(Wire.MESSAGES, JSON.readTree(asBlocks)));
        assertThat(PromptCache.prompt(Wire.MESSAGES, JSON.readTree(asBlocks))).isEqualTo("\n\"s\"\n[{\"role\":\"user\",\"content\":\"hi\"}]");
        String twoBlocks = "{\"messages\":[{\"role\":\"tool\",\"content\":[{\"type\":\"text\",\"text\":\"x\"},"
                + "{\"type\":\"text\",\"text\":\"y\"}]}]}";
        assertThat(PromptCache.prompt(Wire.CHAT_COMPLETIONS, JSON.readTree(twoBlocks)))
                .isEqualTo("\n" + JSON.readTree(twoBlocks).get("messages"));
        String responses = "{\"input\":[{\"content\":[{\"type\":\"text\",\"text\":\"x\"}]}]}";
        assertThat(PromptCache.prompt(Wire.RESPONSES, JSON.readTree(responses)))
                .isEqualTo("\n\n" + JSON.readTree(responses).get("input"));
    }

    @Test
    void aMovingCacheMarkerBreaksTheRawBodysPrefixButNotThePrompts() {
        Request first = request(Wire.MESSAGES, "{\"system\":\"s\",\"messages\":[{\"role\":\"user\",\"content\":"
                + "[{\"type\":\"text\",\"text\":\"go\",\"cache_control\":{\"type\":\"ephemeral\"}}]}]}");
        Request second = request(Wire.MESSAGES, "{\"system\":\"s\",\"messages\":[{\"role\":\"user\",\"content\":"
                + "[{\"type\":\"text\",\"text\":\"go\"}]},{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":"
                + "\"ok\",\"cache_control\":{\"type\":\"ephemeral\"}}]}]}");
        PromptCache.Tally tally = new PromptCache.Tally();
        tally.addTurn(List.of(first, second));

        // the first prompt whole but the conversation's closing bracket, where the second goes on with a message
        int shared = first.prompt().length() - 1;
        assertThat(PromptCache.commonPrefix(first.prompt(), second.prompt())).isEqualTo(shared);
        assertThat(tally.share()).isCloseTo(shared / (double) second.prompt().length(), within(1e-9));
        assertThat(tally.bodyShare()).isCloseTo(second.body().indexOf("}]}") / (double) second.body().length(), within(1e-9));
        assertThat(tally.bodyShare()).isLessThan(tally.share());
        assertThat(List.of(tally.rounds(), tally.broken())).containsExactly(1L, 0L);
    }

    @Test
    void aChangingSystemPromptLeavesOnlyTheToolsCacheableAndTheLowestRoundSaysWhere() {
        Request first = request(Wire.CHAT_COMPLETIONS, "{\"messages\":[{\"role\":\"system\",\"content\":\"time 10:00\"}],"
                + "\"tools\":[\"t\"]}");
        Request second = request(Wire.CHAT_COMPLETIONS, "{\"messages\":[{\"role\":\"system\",\"content\":\"time 10:01\"},"
                + "{\"role\":\"user\",\"content\":\"x\"}],\"tools\":[\"t\"]}");
        Request third = request(Wire.CHAT_COMPLETIONS, "{\"messages\":[{\"role\":\"system\",\"content\":\"time 10:01\"},"
                + "{\"role\":\"user\",\"content\":\"x\"},{\"role\":\"user\",\"content\":\"y\"}],\"tools\":[\"t\"]}");
        PromptCache.Tally tally = new PromptCache.Tally();
        tally.addTurn(List.of(first, second, third));

        int round1 = "[\"t\"]\n[{\"role\":\"system\",\"content\":\"time 10:0".length();
        int round2 = third.prompt().length() - ",{\"role\":\"user\",\"content\":\"y\"}]".length();
        assertThat(tally.share()).isCloseTo((round1 + round2) / (double) (second.prompt().length() + third.prompt().length()),
                within(1e-9));
        assertThat(tally.lowestShare()).isCloseTo(round1 / (double) second.prompt().length(), within(1e-9));
        assertThat(tally.lowestAt()).startsWith("round 1: the prompt differs from the round before at char " + round1 + " of ");
        assertThat(tally.broken()).as("round 1 changed the system prompt, round 2 only added a message").isEqualTo(1);
        assertThat(tally.inputTokensPerRound()).isEqualTo(
                PromptCache.tokens(second.prompt().length() + third.prompt().length()) / 2.0);
    }

    @Test
    void theServersReportedCacheReadsAreTakenFromAnAnthropicOrOpenAiUsage() {
        byte[] body = "{\"messages\":[]}".getBytes(StandardCharsets.UTF_8);
        Request anthropic = Request.of(Wire.MESSAGES, body, ("{\"usage\":{\"input_tokens\":0,\"cache_creation_input_tokens\":"
                + "30,\"cache_read_input_tokens\":70,\"output_tokens\":5}}").getBytes(StandardCharsets.UTF_8));
        Request openAi = Request.of(Wire.CHAT_COMPLETIONS, body, ("{\"usage\":{\"prompt_tokens\":200,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":50}}}").getBytes(StandardCharsets.UTF_8));
        Request none = Request.of(Wire.CHAT_COMPLETIONS, body, "{\"usage\":{\"prompt_tokens\":200}}".getBytes(StandardCharsets.UTF_8));

        assertThat(List.of(anthropic.reportedInput(), anthropic.reportedCacheRead(), openAi.reportedInput(),
                openAi.reportedCacheRead(), none.reportedCacheRead())).containsExactly(100L, 70L, 200L, 50L, -1L);
        PromptCache.Tally tally = new PromptCache.Tally();
        tally.addTurn(List.of(none, anthropic, openAi));
        assertThat(tally.reportedShare()).isCloseTo(120 / 300.0, within(1e-9));
    }
}
