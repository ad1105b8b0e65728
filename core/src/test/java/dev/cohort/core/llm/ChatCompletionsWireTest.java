package dev.cohort.core.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.Message;
import dev.cohort.core.engine.ModelClient;
import dev.cohort.core.engine.ModelToolCall;
import dev.cohort.core.engine.recovery.MalformedModelResponse;
import dev.cohort.core.tools.skills.LoadSkillTool;
import dev.cohort.core.tools.subagent.SpawnSubagentTool;
import dev.cohort.core.tools.todo.TodoWriteTool;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.workspace.WorkspaceToolsFixture;
import dev.cohort.devstack.model.ScriptedModelServer;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.json.JsonArraySchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiChatRequestParameters;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The request Cohort writes itself is the one langchain4j's {@code OpenAiChatModel} sent before:
 * both go to the scripted model over real HTTP and the bodies it received are compared as JSON, for conversations
 * with a system prompt, tool calls, tool results, empty and null texts, escapes, the real tool schemas and an output
 * limit. The reply side is read from the scripted model's real answers.
 */
class ChatCompletionsWireTest {

    @Test
    void theBodyBufferIsSizedFromTheConversationNotFromAGuessPerMessage() {
        List<Message> many = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            many.add(i % 2 == 0 ? Message.user("ping " + i) : Message.assistant("pong", List.of()));
        }
        many.add(Message.assistant(null, List.of(new ModelToolCall("c1", "bash", "{\"command\":\"true\"}"))));
        many.add(Message.tool("c1", "bash", "x".repeat(50_000), false));
        String tools = "[" + "{\"type\":\"function\"}".repeat(1) + "]";
        byte[] body = ChatCompletionsWire.request("m", "team/lead", "you are the lead", many, tools, null);
        int hint = ChatCompletionsWire.sizeHint("you are the lead", many, tools);
        // room for the whole body (no doubling), and not the 2 MB a 1 KB-per-message guess reserved
        assertThat(hint).isGreaterThanOrEqualTo(body.length).isLessThan(body.length * 2);
        assertThat(ChatCompletionsWire.sizeHint(null, List.of(), null)).isPositive();
    }


    static ScriptedModelServer server;

    @BeforeAll
    static void start() {
        server = ScriptedModelServer.start(0);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void reset() {
        server.reset();
        server.load("{\"rules\":[{\"name\":\"r\",\"reply\":{\"text\":\"ok\"}}]}");
    }

    LlmSettings settings() {
        return new LlmSettings(server.baseUrl(), "sk-test", "primary-model", Optional.empty(), Duration.ofSeconds(20));
    }

    /** langchain4j's client as the gateway built it before this change (no retries of its own). */
    ChatModel langchain4j(String model) {
        return OpenAiChatModel.builder().httpClientBuilder(JdkHttpClient.builder()).baseUrl(server.baseUrl())
                .apiKey("sk-test").modelName(model).timeout(Duration.ofSeconds(20)).maxRetries(0).build();
    }

    /** The body langchain4j sent and the body Cohort's client sent for the same call, in that order. */
    List<JsonNode> bothBodies(ModelClient.Request r) {
        List<ChatMessage> msgs = new ArrayList<>();
        if (r.system() != null && !r.system().isEmpty()) {
            msgs.add(SystemMessage.from(r.system()));
        }
        r.messages().forEach(m -> msgs.add(toLangchain(m)));
        OpenAiChatRequestParameters.Builder params = OpenAiChatRequestParameters.builder().modelName(r.model())
                .user(r.agentId());
        if (!r.tools().isEmpty()) {
            params.toolSpecifications(r.tools());
        }
        if (r.maxOutputTokens() != null) {
            params.maxOutputTokens(r.maxOutputTokens());
        }
        langchain4j(r.model()).chat(ChatRequest.builder().messages(msgs).parameters(params.build()).build());
        new ChatCompletionsClient(settings(), r.model()).chat(r);
        assertThat(server.requests()).hasSize(2);
        return List.of(server.requests().get(0).body(), server.requests().get(1).body());
    }

    /** The conversion the gateway made before: engine message → langchain4j message. */
    static ChatMessage toLangchain(Message m) {
        return switch (m.role()) {
            case USER -> UserMessage.from(m.content() == null ? "" : m.content());
            case TOOL -> ToolExecutionResultMessage.from(m.toolCallId(), m.toolName(), m.content() == null ? "" : m.content());
            case ASSISTANT -> {
                if (!m.hasToolCalls()) {
                    yield AiMessage.from(m.content() == null ? "" : m.content());
                }
                List<ToolExecutionRequest> reqs = m.toolCalls().stream().map(c -> ToolExecutionRequest.builder()
                        .id(c.id()).name(c.name()).arguments(c.arguments() == null ? "{}" : c.arguments()).build()).toList();
                yield m.content() == null || m.content().isEmpty() ? AiMessage.from(reqs) : AiMessage.from(m.content(), reqs);
            }
        };
    }

    static List<ToolSpecification> leadTools() {
        List<ToolSpecification> specs = new ArrayList<>();
        List<Tool> tools = new ArrayList<>(WorkspaceToolsFixture.tools("bash", "read_file", "write_file", "edit_file",
                "glob", "grep"));
        tools.addAll(List.of(new TodoWriteTool(), new SpawnSubagentTool(), new LoadSkillTool()));
        for (Tool t : tools) {
            specs.add(t.spec());
        }
        specs.add(ToolSpecification.builder().name("no_params").description("takes nothing").build());
        specs.add(ToolSpecification.builder().name("shapes").parameters(JsonObjectSchema.builder()
                .addIntegerProperty("count", "how many").addBooleanProperty("force").addNumberProperty("ratio")
                .addEnumProperty("mode", List.of("a", "b"), "which")
                .addProperty("items", JsonArraySchema.builder().items(JsonObjectSchema.builder()
                        .addStringProperty("path").required("path").build()).build())
                .required("count", "mode").additionalProperties(false).build()).build());
        return specs;
    }

    @Test
    void aWholeToolRoundConversationIsWrittenExactlyAsLangchain4jWroteIt() {
        List<Message> conversation = List.of(
                Message.user("list the files, then \"count\" them\nplease ✓ \u0001"),
                Message.assistant("I will look.", List.of(new ModelToolCall("c1", "bash", "{\"command\":\"ls -la\"}"),
                        new ModelToolCall("c2", "glob", "{\"pattern\":\"**/*.java\"}"))),
                Message.tool("c1", "bash", "a\nb\tc \\ \"q\"", false),
                Message.tool("c2", "glob", "permission denied: rule deny-all", true),
                Message.assistant(null, List.of(new ModelToolCall("c3", "read_file", "{\"path\":\"a\"}"))),
                Message.tool("c3", "read_file", "", false),
                Message.assistant("Two files.", List.of()),
                Message.user("thanks"));

        List<JsonNode> bodies = bothBodies(new ModelClient.Request("default/lead", "You are the lead.\n<memory/>",
                conversation, leadTools(), "primary-model", 4096));

        assertThat(bodies.get(1)).isEqualTo(bodies.get(0));
        assertThat(bodies.get(1).get("tools")).hasSize(11);
        assertThat(bodies.get(1).get("max_tokens").asInt()).isEqualTo(4096);
    }

    @Test
    void nullAndEmptyTextsNoSystemPromptNoToolsAndNoLimitAreWrittenAsLangchain4jWroteThem() {
        List<Message> conversation = List.of(
                new Message(Message.Role.USER, null, List.of(), null, null, false),
                new Message(Message.Role.ASSISTANT, null, List.of(), null, null, false),
                Message.assistant("", List.of(new ModelToolCall("c1", "bash", null))),
                new Message(Message.Role.TOOL, null, List.of(), "c1", "bash", false),
                Message.user(""));

        List<JsonNode> bodies = bothBodies(new ModelClient.Request("team-b/sam", null, conversation, List.of(),
                "primary-model", null));

        assertThat(bodies.get(1)).isEqualTo(bodies.get(0));
        assertThat(bodies.get(1).has("tools")).isFalse();
    }

    @Test
    void aToolSetsSchemaJsonIsWrittenOnceAndReusedForAnEqualToolSet() {
        ChatCompletionsClient client = new ChatCompletionsClient(settings(), "primary-model");
        List<ToolSpecification> tools = leadTools();

        String first = client.toolsJson(tools);

        assertThat(client.toolsJson(tools)).isSameAs(first);
        assertThat(client.toolsJson(new ArrayList<>(leadTools()))).as("an equal set built again").isSameAs(first);
        assertThat(client.toolsJson(tools.subList(0, 2))).as("another set").isNotEqualTo(first)
                .isEqualTo(ChatCompletionsWire.tools(tools.subList(0, 2)));
        assertThat(client.toolsJson(List.of())).isNull();
    }

    @Test
    void aReplyWithToolCallsUsageAndCachedTokensIsReadFromTheWire() {
        server.load("""
                {"rules":[{"name":"t","reply":{"text":"calling","toolCalls":[
                  {"id":"c1","name":"bash","arguments":{"command":"true 1"}},
                  {"id":"c2","name":"glob","arguments":{"pattern":"*"}}],
                  "usage":{"prompt_tokens":1200,"completion_tokens":34,"cached_tokens":1024}}}]}""");

        ModelClient.Reply r = new ChatCompletionsClient(settings(), "primary-model")
                .chat(new ModelClient.Request("default/lead", "sys", List.of(Message.user("go")), leadTools(), null, null));

        assertThat(r).isEqualTo(new ModelClient.Reply("calling", List.of(
                new ModelToolCall("c1", "bash", "{\"command\":\"true 1\"}"),
                new ModelToolCall("c2", "glob", "{\"pattern\":\"*\"}")), "tool_calls", 1200, 34, "primary-model", 1024));
    }

    @Test
    void finishReasonsAreMappedAsLangchain4jMappedThem() {
        assertThat(finish("stop", false)).isEqualTo("stop");
        assertThat(finish("length", true)).isEqualTo("length");
        assertThat(finish("tool_calls", true)).isEqualTo("tool_calls");
        assertThat(finish("function_call", true)).isEqualTo("tool_calls");
        assertThat(finish("content_filter", false)).isEqualTo("content_filter");
        assertThat(finish(null, false)).as("missing, no calls").isEqualTo("stop");
        assertThat(finish(null, true)).as("missing, with calls").isEqualTo("tool_calls");
        assertThat(finish("something_new", false)).as("unknown").isEqualTo("stop");
    }

    static String finish(String reason, boolean withCall) {
        String calls = withCall ? ",\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"bash\","
                + "\"arguments\":\"{}\"}}]" : "";
        String body = "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null" + calls + "},"
                + "\"finish_reason\":" + (reason == null ? "null" : "\"" + reason + "\"") + "}]}";
        return ChatCompletionsWire.reply(body.getBytes(StandardCharsets.UTF_8)).finishReason();
    }

    @Test
    void anAnswerWithoutChoicesWithoutAMessageOrNotJsonIsAMalformedResponse() {
        for (String body : List.of("{\"id\":\"x\",\"choices\":[]}", "{\"id\":\"x\"}",
                "{\"choices\":[{\"index\":0,\"finish_reason\":\"stop\"}]}", "<html>bad gateway</html>", "")) {
            assertThatThrownBy(() -> ChatCompletionsWire.reply(body.getBytes(StandardCharsets.UTF_8)))
                    .as(body).isInstanceOf(MalformedModelResponse.class)
                    .hasMessageStartingWith("the model's answer is not a usable chat completion: ");
        }
    }
}
