package dev.cohort.devstack.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** A responder computes its reply from the request, before the rules, and passes with null. */
class ScriptedModelRespondTest extends ScriptedModelTestSupport {

    @Test
    void aResponderAnswersFromTheRequestBeforeTheRulesAndLeavesWhatItReturnsNullForToThem() {
        server.load("{\"rules\":[{\"name\":\"fixed\",\"reply\":{\"text\":\"from the rule\"}}]}");
        server.respond("echo", "team/.*", body -> {
            String last = body.path("messages").get(body.path("messages").size() - 1).path("content").asText();
            return last.startsWith("echo ") ? Reply.text(last.substring(5).toUpperCase()) : null;
        });
        HttpResponse<String> computed = chat(chatRequest("team/lead", "user", "echo hello"));
        HttpResponse<String> passed = chat(chatRequest("team/lead", "user", "something else"));
        HttpResponse<String> otherAgent = chat(chatRequest("other/lead", "user", "echo hello"));

        assertThat(json(computed.body()).path("choices").get(0).path("message").path("content").asText()).isEqualTo("HELLO");
        assertThat(json(passed.body()).path("choices").get(0).path("message").path("content").asText()).isEqualTo("from the rule");
        assertThat(json(otherAgent.body()).path("choices").get(0).path("message").path("content").asText()).isEqualTo("from the rule");
        assertThat(server.requests().stream().map(RecordedRequest::rule).toList()).containsExactly("echo", "fixed", "fixed");
        server.reset();
        server.load("{\"rules\":[{\"name\":\"fixed\",\"reply\":{\"text\":\"from the rule\"}}]}");
        assertThat(json(chat(chatRequest("team/lead", "user", "echo again")).body()).path("choices").get(0).path("message")
                .path("content").asText()).as("reset drops the responders").isEqualTo("from the rule");
    }
}
