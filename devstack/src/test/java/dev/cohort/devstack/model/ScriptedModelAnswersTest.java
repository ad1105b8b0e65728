package dev.cohort.devstack.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** What the scripted model answers: text, tool calls, finish reasons, usage and the OpenAI response shape. */
class ScriptedModelAnswersTest extends ScriptedModelTestSupport {

    @Test
    void a_text_rule_answers_with_a_complete_openai_chat_completion() {
        server.load("""
                {"rules":[{"name":"hello","reply":{"text":"Hello there","usage":{"prompt_tokens":10,"completion_tokens":5}}}]}
                """);

        HttpResponse<String> response = chat(chatRequest("default/lead", "user", "hi"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).contains("application/json");
        ObjectNode body = (ObjectNode) json(response.body());
        assertThat(body.path("created").asLong()).isPositive();
        body.remove("created");
        assertThat(body).isEqualTo(json("""
                {"id":"chatcmpl-scripted-1","object":"chat.completion","model":"gpt-4o-mini",
                 "choices":[{"index":0,
                             "message":{"role":"assistant","content":"Hello there","refusal":null},
                             "logprobs":null,"finish_reason":"stop"}],
                 "usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15},
                 "system_fingerprint":"fp_scripted"}
                """));
    }

    @Test
    void usage_defaults_to_a_quarter_of_the_request_and_reply_characters() {
        server.load(Scenario.builder().rule(Rule.when().thenText("12345678")).build());
        ObjectNode request = chatRequest("a", "user", "x".repeat(400));

        JsonNode usage = json(chat(request).body()).path("usage");

        int expectedPrompt = (request.toString().length() + 3) / 4;
        assertThat(usage).isEqualTo(json("{\"prompt_tokens\":" + expectedPrompt + ",\"completion_tokens\":2,"
                + "\"total_tokens\":" + (expectedPrompt + 2) + "}"));
    }

    @Test
    void a_tool_call_rule_answers_with_one_tool_call_whose_arguments_are_a_json_string() {
        server.load("""
                {"rules":[{"reply":{"toolCalls":[{"id":"call_abc","name":"bash","arguments":{"command":"ls -la"}}]}}]}
                """);

        JsonNode choice = choice(chat(chatRequest("default/lead", "user", "list files")));

        assertThat(choice).isEqualTo(json("""
                {"index":0,
                 "message":{"role":"assistant","content":null,"refusal":null,
                            "tool_calls":[{"id":"call_abc","type":"function",
                                           "function":{"name":"bash","arguments":"{\\"command\\":\\"ls -la\\"}"}}]},
                 "logprobs":null,"finish_reason":"tool_calls"}
                """));
        String arguments = choice.at("/message/tool_calls/0/function/arguments").asText();
        assertThat(json(arguments)).isEqualTo(json("{\"command\":\"ls -la\"}"));
    }

    @Test
    void several_tool_calls_in_one_answer_get_unique_default_ids_and_keep_their_text() {
        server.load(Scenario.builder()
                .rule(Rule.when().then(Reply.toolCalls(
                                Reply.ToolCall.of("read_file", "{\"path\":\"a.txt\"}"),
                                Reply.ToolCall.of("read_file", "{\"path\":\"b.txt\"}"))
                        .withText("Reading both files.")))
                .build());

        JsonNode first = choice(chat(chatRequest("a", "user", "read")));
        JsonNode second = choice(chat(chatRequest("a", "user", "read again")));

        assertThat(first.path("message")).isEqualTo(json("""
                {"role":"assistant","content":"Reading both files.","refusal":null,
                 "tool_calls":[
                   {"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\\"path\\":\\"a.txt\\"}"}},
                   {"id":"call_2","type":"function","function":{"name":"read_file","arguments":"{\\"path\\":\\"b.txt\\"}"}}]}
                """));
        assertThat(first.path("finish_reason").asText()).isEqualTo("tool_calls");
        assertThat(second.at("/message/tool_calls").findValuesAsText("id")).containsExactly("call_3", "call_4");
    }

    @Test
    void malformed_tool_call_arguments_are_returned_verbatim() {
        server.load("""
                {"rules":[{"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"ls"}},{"name":"bash"}],
                                    "rawArguments":"{\\"command\\": \\"ls"}}]}
                """);

        JsonNode toolCalls = choice(chat(chatRequest("a", "user", "go"))).at("/message/tool_calls");

        assertThat(toolCalls.path(0).at("/function/arguments").asText()).isEqualTo("{\"command\": \"ls");
        assertThat(toolCalls.path(1).at("/function/arguments").asText()).isEqualTo("{}");
    }

    @Test
    void a_length_finish_reason_is_passed_through_with_the_partial_text() {
        server.load("""
                {"rules":[{"reply":{"text":"The answer is cut","finishReason":"length"}}]}
                """);

        JsonNode choice = choice(chat(chatRequest("a", "user", "write a long essay")));

        assertThat(choice.path("finish_reason").asText()).isEqualTo("length");
        assertThat(choice.at("/message/content").asText()).isEqualTo("The answer is cut");
    }

    @Test
    void the_requested_model_is_echoed_and_a_missing_model_becomes_scripted() {
        server.load(Scenario.builder().rule(Rule.when().thenText("ok")).build());
        ObjectNode withoutModel = chatRequest("a", "user", "hi");
        withoutModel.remove("model");

        assertThat(json(chat(chatRequest("a", "user", "hi")).body()).path("model").asText()).isEqualTo("gpt-4o-mini");
        assertThat(json(chat(withoutModel).body()).path("model").asText()).isEqualTo("scripted");
    }

    @Test
    void placeholders_in_the_text_are_filled_from_the_request() {
        server.load(Scenario.builder()
                .rule(Rule.when().thenText("{{agent}} call {{call}} said: {{lastMessage}}")).build());

        JsonNode choice = choice(chat(chatRequest("team/dev", "system", "be brief", "user", "ping")));

        assertThat(choice.at("/message/content").asText()).isEqualTo("team/dev call 1 said: ping");
    }

    @Test
    void a_delay_holds_the_answer_back_at_least_that_long() {
        server.load(Scenario.builder().rule(Rule.when().then(Reply.text("late").withDelayMs(300))).build());

        long start = System.nanoTime();
        HttpResponse<String> response = chat(chatRequest("a", "user", "hi"));
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(elapsedMs).isGreaterThanOrEqualTo(300);
    }

    @Test
    void an_empty_reply_answers_with_empty_content_and_stop() {
        server.load(Scenario.builder().rule(Rule.when().then(Reply.text(null))).build());

        assertThat(choice(chat(chatRequest("a", "user", "hi"))).path("message"))
                .isEqualTo(json("{\"role\":\"assistant\",\"content\":\"\",\"refusal\":null}"));
    }

    @Test
    void a_chunked_request_body_is_read_like_a_sized_one() {
        server.load(Scenario.builder().rule(Rule.when().lastMessage("chunked").thenText("got it")).build());
        byte[] body = chatRequest("a", "user", "a chunked body").toString().getBytes();

        // ofInputStream has no known length, so the JDK client sends Transfer-Encoding: chunked
        HttpResponse<String> response = send(HttpRequest
                .newBuilder(URI.create(server.baseUrl() + "/chat/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)))
                .build());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(choice(response).at("/message/content").asText()).isEqualTo("got it");
    }
}
