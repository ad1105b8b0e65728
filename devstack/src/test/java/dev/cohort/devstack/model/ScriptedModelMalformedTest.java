package dev.cohort.devstack.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** Malformed provider output on purpose: a raw 200 body, and a response cut mid-body. */
class ScriptedModelMalformedTest extends ScriptedModelTestSupport {

    @Test
    void a_raw_body_is_answered_verbatim_with_200() {
        server.load("{\"rules\":[{\"reply\":{\"rawBody\":\"{\\\"choices\\\":[]}\"}}]}");

        HttpResponse<String> response = chat(chatRequest("a", "user", "hi"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("{\"choices\":[]}");
    }

    @Test
    void a_truncated_answer_declares_its_whole_length_and_closes_early_so_the_client_fails() {
        server.load(Scenario.builder().rule(Rule.when().then(Reply.text("a long enough answer").truncatedAt(20)))
                .build());

        assertThatThrownBy(() -> chat(chatRequest("a", "user", "hi")))
                .isInstanceOf(UncheckedIOException.class).hasCauseInstanceOf(IOException.class);
        // the server keeps serving after the cut connection
        server.load(Scenario.builder().rule(Rule.when().thenText("fine")).build());
        assertThat(choice(chat(chatRequest("a", "user", "hi"))).path("message").path("content").asText()).isEqualTo("fine");
    }

    @Test
    void a_raw_body_beside_text_is_refused_at_load_time() {
        assertThatThrownBy(() -> server.load("{\"rules\":[{\"reply\":{\"rawBody\":\"x\",\"text\":\"y\"}}]}"))
                .hasMessageContaining("rawBody");
    }
}
