package dev.cohort.core.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.Message;
import dev.cohort.core.engine.ModelClient;
import dev.cohort.core.engine.ModelToolCall;
import dev.cohort.core.engine.recovery.MalformedModelResponse;
import dev.cohort.core.engine.recovery.ModelFailure;
import dev.cohort.core.engine.recovery.ProviderHttpException;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.devstack.model.ScriptedModelServer;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Anthropic's Messages API: the request written from the engine's conversation (roles alternating, tool use and
 * results as blocks, the three cache breakpoints), the reply read back (stop reasons, usage with the cache's tokens),
 * a provider per model, and a client on the scripted model's {@code /v1/messages}, whose cache serves a round's
 * prefix to the next round.
 */
class AnthropicMessagesWireTest {

    static ScriptedModelServer server;

    @BeforeAll
    static void start() {
        server = ScriptedModelServer.start(0);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static final ToolSpecification READ = ToolSchemas.spec("read_file", "Reads a file",
            ToolSchemas.object().addProperty("path", ToolSchemas.string("the path")).required("path").build());
    private static final ToolSpecification GLOB = ToolSchemas.spec("glob", "Finds files",
            ToolSchemas.object().addProperty("pattern", ToolSchemas.string("a glob")).build());

    private static JsonNode json(byte[] b) {
        return Json.read(new String(b, StandardCharsets.UTF_8), JsonNode.class);
    }

    @Test
    void theConversationIsWrittenAsAlternatingMessagesWithToolBlocksAndThreeCacheBreakpoints() {
        List<Message> conversation = List.of(
                Message.user("read a.txt and b.txt"),
                Message.assistant("Reading both.", List.of(new ModelToolCall("t1", "read_file", "{\"path\":\"a.txt\"}"),
                        new ModelToolCall("t2", "read_file", "{\"path\":\"b.txt\"}"))),
                Message.tool("t1", "read_file", "alpha", false),
                Message.tool("t2", "read_file", "no such file", true),
                Message.user("<reminder>keep going</reminder>"));
        JsonNode r = json(AnthropicMessagesWire.request("claude-x", "default/lead", "You are the lead.", conversation,
                List.of(READ, GLOB), null));

        assertThat(r.path("model").asText()).isEqualTo("claude-x");
        assertThat(r.path("max_tokens").asInt()).isEqualTo(AnthropicMessagesWire.DEFAULT_MAX_TOKENS);
        assertThat(r.path("metadata").path("user_id").asText()).isEqualTo("default/lead");
        assertThat(r.path("system").path(0).path("text").asText()).isEqualTo("You are the lead.");
        assertThat(r.path("system").path(0).path("cache_control").path("type").asText()).isEqualTo("ephemeral");
        assertThat(r.path("tools")).hasSize(2);
        assertThat(r.path("tools").path(0).path("input_schema").path("required").path(0).asText()).isEqualTo("path");
        assertThat(r.path("tools").path(0).has("cache_control")).isFalse();
        assertThat(r.path("tools").path(1).path("cache_control").path("type").asText()).isEqualTo("ephemeral");

        JsonNode messages = r.path("messages");
        assertThat(messages).hasSize(3); // user, assistant, then one user message: both results and the reminder
        assertThat(messages.path(1).path("content").path(1).path("type").asText()).isEqualTo("tool_use");
        assertThat(messages.path(1).path("content").path(1).path("input").path("path").asText()).isEqualTo("a.txt");
        JsonNode last = messages.path(2).path("content");
        assertThat(last).hasSize(3);
        assertThat(last.path(0).path("type").asText()).isEqualTo("tool_result");
        assertThat(last.path(0).path("tool_use_id").asText()).isEqualTo("t1");
        assertThat(last.path(1).path("is_error").asBoolean()).isTrue();
        assertThat(last.path(2).path("text").asText()).isEqualTo("<reminder>keep going</reminder>");
        assertThat(last.path(2).path("cache_control").path("type").asText()).isEqualTo("ephemeral");
        assertThat(r.toString().split("cache_control", -1)).hasSize(4); // three breakpoints, no more
    }

    @Test
    void theReplysBlocksStopReasonAndUsageWithTheCachesTokensAreRead() {
        ModelClient.Reply reply = AnthropicMessagesWire.reply("""
                {"id":"msg_1","type":"message","role":"assistant","model":"claude-x",
                 "content":[{"type":"thinking","thinking":"..."},{"type":"text","text":"Let me look."},
                            {"type":"tool_use","id":"toolu_1","name":"glob","input":{"pattern":"*.java"}}],
                 "stop_reason":"tool_use","usage":{"input_tokens":12,"cache_creation_input_tokens":300,
                 "cache_read_input_tokens":4000,"output_tokens":40}}""".getBytes(StandardCharsets.UTF_8));
        assertThat(reply.text()).isEqualTo("Let me look.");
        assertThat(reply.toolCalls()).singleElement().satisfies(c -> {
            assertThat(c.id()).isEqualTo("toolu_1");
            assertThat(Json.read(c.arguments(), JsonNode.class).path("pattern").asText()).isEqualTo("*.java");
        });
        assertThat(reply.finishReason()).isEqualTo("tool_calls");
        assertThat(reply.inputTokens()).isEqualTo(4312);
        assertThat(reply.cachedTokens()).isEqualTo(4000);
        assertThat(reply.cacheWriteTokens()).isEqualTo(300);
        assertThat(reply.outputTokens()).isEqualTo(40);
        assertThat(reply.model()).isEqualTo("claude-x");

        assertThat(AnthropicMessagesWire.reply("""
                {"content":[{"type":"text","text":"cut"}],"stop_reason":"max_tokens","usage":{}}"""
                .getBytes(StandardCharsets.UTF_8)).finishReason()).isEqualTo("length");
        assertThatThrownBy(() -> AnthropicMessagesWire.reply("{\"type\":\"message\"}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(MalformedModelResponse.class).hasMessageContaining("(content)");
        assertThatThrownBy(() -> AnthropicMessagesWire.reply("not json".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(MalformedModelResponse.class);
    }

    @Test
    void theApisErrorsAreClassifiedAsTheEnginesRecoveryExpects() {
        assertThat(ModelFailure.fromHttp(529, "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
                + "\"message\":\"Overloaded\"}}", null).kind()).isEqualTo(ModelFailure.Kind.OVERLOADED);
        assertThat(ModelFailure.fromHttp(400, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
                + "\"message\":\"prompt is too long: 210000 tokens > 200000 maximum\"}}", null).kind())
                .isEqualTo(ModelFailure.Kind.CONTEXT_LENGTH);
        assertThat(ModelFailure.fromHttp(413, "{\"type\":\"error\",\"error\":{\"type\":\"request_too_large\","
                + "\"message\":\"Request exceeds the maximum allowed number of bytes.\"}}", null).kind())
                .isEqualTo(ModelFailure.Kind.CONTEXT_LENGTH);
        assertThat(ModelFailure.fromHttp(400, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
                + "\"message\":\"Your credit balance is too low to access the Anthropic API.\"}}", null).kind())
                .isEqualTo(ModelFailure.Kind.QUOTA);
        assertThat(ModelFailure.fromHttp(429, "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\","
                + "\"message\":\"slow down\"}}", Duration.ofSeconds(3)).kind()).isEqualTo(ModelFailure.Kind.RATE_LIMIT);
    }

    @Test
    void eachModelIsReachedOnItsProvidersWireSoTheFallbackMayBeOnTheOther() {
        LlmSettings s = new LlmSettings(server.baseUrl(), "sk-test", "gpt-main", Optional.of("claude-backup"),
                Duration.ofSeconds(20), "openai", Map.of("claude-backup", "anthropic"), server.baseUrl(), "sk-ant");
        assertThat(LlmGateway.client(s, "gpt-main")).isInstanceOf(ChatCompletionsClient.class);
        assertThat(LlmGateway.client(s, "claude-backup")).isInstanceOf(AnthropicMessagesClient.class);
        assertThat(s.hasApiKey()).isTrue();
        assertThat(s.toString()).doesNotContain("sk-test").doesNotContain("sk-ant");
        assertThatThrownBy(() -> new LlmSettings(null, null, null, null, null, "gemini", Map.of(), null, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cohort.llm.provider")
                .hasMessageContaining("openai").hasMessageContaining("anthropic");
    }

    @Test
    void onTheScriptedMessagesApiARoundsPrefixIsReadFromTheCacheByTheNextRound() {
        server.reset();
        server.load("""
                {"rules":[{"match":{"hasToolResult":false},"reply":{"toolCalls":[{"id":"t1","name":"glob",
                            "arguments":{"pattern":"*"}}]}},
                          {"match":{"lastRole":"tool"},"reply":{"text":"two files"}}]}""");
        LlmSettings s = new LlmSettings(null, null, "claude-x", Optional.empty(), Duration.ofSeconds(20), "anthropic",
                Map.of(), server.baseUrl(), "sk-ant");
        AnthropicMessagesClient client = new AnthropicMessagesClient(s, "claude-x");
        String system = "You are the lead. ".repeat(200);
        List<Message> round1 = List.of(Message.user("list the files"));
        ModelClient.Reply first = client.chat(new ModelClient.Request("t/lead", system, round1, List.of(GLOB), null,
                null));
        assertThat(first.toolCalls()).singleElement().satisfies(c -> assertThat(c.name()).isEqualTo("glob"));
        assertThat(first.cachedTokens()).isZero();
        assertThat(first.cacheWriteTokens()).as("a prefix the cache has not seen is written to it")
                .isEqualTo(first.inputTokens()).isPositive();

        List<Message> round2 = List.of(round1.get(0), Message.assistant(null, first.toolCalls()),
                Message.tool("t1", "glob", "a.txt\nb.txt", false));
        ModelClient.Reply second = client.chat(new ModelClient.Request("t/lead", system, round2, List.of(GLOB), null,
                null));
        assertThat(second.text()).isEqualTo("two files");
        assertThat(second.finishReason()).isEqualTo("stop");
        assertThat(second.cachedTokens()).isGreaterThan(second.inputTokens() / 2); // the first round's prompt
        assertThat(second.cacheWriteTokens()).as("only what the round added is written")
                .isEqualTo(second.inputTokens() - second.cachedTokens()).isPositive();
        // the scripted server saw the same request as a chat completion: one scenario format for both wires
        JsonNode seen = server.requests().get(1).body();
        assertThat(seen.path("user").asText()).isEqualTo("t/lead");
        assertThat(seen.path("messages").path(3).path("role").asText()).isEqualTo("tool");

        server.load("""
                {"rules":[{"reply":{"error":{"preset":"rate_limit"}}}]}""");
        assertThatThrownBy(() -> client.chat(new ModelClient.Request("t/lead", system, round1, List.of(), null, null)))
                .isInstanceOfSatisfying(ProviderHttpException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(429);
                    assertThat(ModelFailure.classify(e).kind()).isEqualTo(ModelFailure.Kind.RATE_LIMIT);
                    assertThat(ModelFailure.classify(e).code()).isEqualTo("rate_limit_error");
                });
    }
}
