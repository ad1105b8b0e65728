package dev.cohort.devstack.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** Scripted HTTP errors and the errors the server itself raises for bad or unexpected requests. */
class ScriptedModelErrorsTest extends ScriptedModelTestSupport {

    @Test
    void a_429_rule_answers_with_retry_after_headers_and_an_openai_error_body() {
        server.load("""
                {"rules":[{"reply":{"error":{"status":429,"type":"rate_limit_error","code":"rate_limit_exceeded",
                                             "message":"Slow down","retryAfter":"2","retryAfterMs":"1500"}}}]}
                """);

        HttpResponse<String> response = chat(chatRequest("a", "user", "hi"));

        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(response.headers().firstValue("retry-after")).contains("2");
        assertThat(response.headers().firstValue("retry-after-ms")).contains("1500");
        assertThat(json(response.body())).isEqualTo(json("""
                {"error":{"message":"Slow down","type":"rate_limit_error","param":null,"code":"rate_limit_exceeded"}}
                """));
    }

    @Test
    void a_bare_529_gets_an_openai_shaped_overloaded_error() {
        server.load("{\"rules\":[{\"reply\":{\"error\":{\"status\":529}}}]}");

        HttpResponse<String> response = chat(chatRequest("a", "user", "hi"));

        assertThat(response.statusCode()).isEqualTo(529);
        assertThat(json(response.body())).isEqualTo(json("""
                {"error":{"message":"Overloaded","type":"overloaded_error","param":null,"code":"overloaded"}}
                """));
    }

    @Test
    void a_529_in_anthropic_format_uses_the_anthropic_error_envelope() {
        server.load("""
                {"rules":[{"reply":{"error":{"preset":"overloaded","format":"anthropic"}}}]}
                """);

        HttpResponse<String> response = chat(chatRequest("a", "user", "hi"));

        assertThat(response.statusCode()).isEqualTo(529);
        assertThat(json(response.body())).isEqualTo(json("""
                {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}
                """));
    }

    @Test
    void a_500_rule_answers_with_a_server_error() {
        server.load(Scenario.builder().rule(Rule.when().thenError(500, "server_error", null, "Boom")).build());

        HttpResponse<String> response = chat(chatRequest("a", "user", "hi"));

        assertThat(response.statusCode()).isEqualTo(500);
        assertThat(json(response.body())).isEqualTo(json("""
                {"error":{"message":"Boom","type":"server_error","param":null,"code":null}}
                """));
    }

    @Test
    void the_context_length_preset_answers_400_exactly_as_openai_does() {
        server.load(Scenario.builder().rule(Rule.when().thenErrorPreset("context_length_exceeded")).build());

        HttpResponse<String> response = chat(chatRequest("a", "user", "a very long prompt"));

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(json(response.body())).isEqualTo(json("""
                {"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages \
                resulted in 131072 tokens. Please reduce the length of the messages.",
                          "type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}
                """));
    }

    @Test
    void a_bare_401_is_an_invalid_api_key_error() {
        server.load("{\"rules\":[{\"reply\":{\"error\":{\"status\":401}}}]}");

        HttpResponse<String> response = chat(chatRequest("a", "user", "hi"));

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(json(response.body()).path("error").path("code").asText()).isEqualTo("invalid_api_key");
        assertThat(json(response.body()).path("error").path("type").asText()).isEqualTo("invalid_request_error");
    }

    @Test
    void the_insufficient_quota_preset_is_a_429_without_retry_after() {
        server.load("{\"rules\":[{\"reply\":{\"error\":{\"preset\":\"insufficient_quota\"}}}]}");

        HttpResponse<String> response = chat(chatRequest("a", "user", "hi"));

        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(response.headers().firstValue("retry-after")).isEmpty();
        assertThat(json(response.body())).isEqualTo(json("""
                {"error":{"message":"You exceeded your current quota, please check your plan and billing details. \
                For more information on this error, read the docs: \
                https://platform.openai.com/docs/guides/error-codes/api-errors.",
                          "type":"insufficient_quota","param":null,"code":"insufficient_quota"}}
                """));
    }

    @Test
    void an_unmatched_request_fails_with_500_naming_the_agent_the_call_and_the_last_message() {
        server.load(Scenario.builder().rule(Rule.when().agent("someone-else").thenText("no")).build());
        String longMessage = "please do the thing " + "x".repeat(1000);
        chat(chatRequest("default/lead", "user", "first"));

        HttpResponse<String> response = chat(chatRequest("default/lead", "system", "sys", "user", longMessage));

        assertThat(response.statusCode()).isEqualTo(500);
        String message = json(response.body()).at("/error/message").asText();
        assertThat(message)
                .contains("agent 'default/lead'")
                .contains("call 2")
                .contains("last message (user): \"please do the thing xxx")
                .doesNotContain("x".repeat(400));
        assertThat(json(response.body()).at("/error/code").asText()).isEqualTo("no_rule_matched");
    }

    @Test
    void a_malformed_json_body_is_rejected_with_an_openai_400() {
        server.load(Scenario.builder().rule(Rule.when().thenText("never")).build());

        HttpResponse<String> response = post("/v1/chat/completions", "{\"model\": \"gpt\", \"messages\": [");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(json(response.body()).at("/error/type").asText()).isEqualTo("invalid_request_error");
        assertThat(json(response.body()).at("/error/message").asText())
                .startsWith("We could not parse the JSON body of your request.");
    }

    @Test
    void a_streaming_request_is_rejected_because_streaming_is_not_supported() {
        server.load(Scenario.builder().rule(Rule.when().thenText("never")).build());
        ObjectNode request = chatRequest("a", "user", "hi");
        request.put("stream", true);

        HttpResponse<String> response = chat(request);

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(json(response.body()).at("/error/param").asText()).isEqualTo("stream");
        assertThat(json(response.body()).at("/error/message").asText()).contains("Streaming is not supported");
    }

    @Test
    void a_request_without_messages_is_rejected_with_400() {
        HttpResponse<String> response = post("/v1/chat/completions", "{\"model\":\"gpt-4o-mini\"}");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(json(response.body()).at("/error/code").asText()).isEqualTo("missing_required_parameter");
    }

    @Test
    void an_unknown_path_answers_404_in_openai_format() {
        HttpResponse<String> response = get("/v1/embeddings");

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(json(response.body()).at("/error/message").asText()).isEqualTo("Invalid URL (GET /v1/embeddings)");
    }
}
