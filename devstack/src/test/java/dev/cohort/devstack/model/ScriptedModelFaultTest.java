package dev.cohort.devstack.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fault mode answers a share of requests with HTTP errors, evenly and without randomness. */
class ScriptedModelFaultTest extends ScriptedModelTestSupport {

    @Test
    void halfOfTheRequestsGet500And529InTurnWhileTheFaultIsOnAndAllGetTheRuleAfterItIsCleared() {
        server.load("{\"rules\":[{\"name\":\"hello\",\"reply\":{\"text\":\"hello\"}}]}");
        server.injectFault(0.5, 500, 529);
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            statuses.add(chat(chatRequest("a", "user", "hi")).statusCode());
        }
        server.clearFault();
        HttpResponse<String> after = chat(chatRequest("a", "user", "hi"));

        assertThat(statuses).containsExactly(200, 500, 200, 529, 200, 500);
        assertThat(server.faultsAnswered()).isEqualTo(3);
        assertThat(after.statusCode()).isEqualTo(200);
        assertThat(server.requests().stream().map(RecordedRequest::rule).toList())
                .containsExactly("hello", "__fault", "hello", "__fault", "hello", "__fault", "hello");
        // an injected error names itself, so a test reading the body knows it was not a rule's
        server.injectFault(1.0, 529);
        HttpResponse<String> injected = chat(chatRequest("a", "user", "hi"));
        assertThat(injected.statusCode()).isEqualTo(529);
        assertThat(json(injected.body()).path("error").path("message").asText()).isEqualTo("Scripted model: injected fault (HTTP 529)");
        server.clearFault();
    }

    @Test
    void aFractionOutsideZeroToOneOrNoStatusIsRefused() {
        assertThatThrownBy(() -> server.injectFault(0, 500)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("fraction must be in (0, 1] and at least one status given");
        assertThatThrownBy(() -> server.injectFault(1.5, 500)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> server.injectFault(0.5)).isInstanceOf(IllegalArgumentException.class);
    }
}
