package dev.cohort.devstack.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A tap sees each model request's body as the client sent it and the answer as written, and nothing once removed. */
class ScriptedModelTapTest extends ScriptedModelTestSupport {

    @Test
    void aTapSeesTheBodiesAsSentOnBothWiresWithTheLogsNumberAndNothingAfterItIsRemoved() {
        server.load("{\"rules\":[{\"name\":\"hi\",\"reply\":{\"text\":\"hi\"}}]}");
        List<ScriptedModelServer.Exchange> seen = new CopyOnWriteArrayList<>();
        server.tap(seen::add);
        // spaced and ordered as no re-serialisation would write it: the tap must give the bytes, not a parsed tree
        String chatBody = "{ \"user\": \"t/lead\", \"model\": \"m\",  \"messages\": [{\"role\":\"user\",\"content\":\"a\"}] }";
        String messagesBody = "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\","
                + "\"cache_control\":{\"type\":\"ephemeral\"}}]}],\"model\":\"m\",\"max_tokens\":10,"
                + "\"metadata\":{\"user_id\":\"t/lead\"}}";
        HttpResponse<String> chat = post("/v1/chat/completions", chatBody);
        HttpResponse<String> message = post("/v1/messages", messagesBody);
        get("/v1/models");
        server.tap(null);
        post("/v1/chat/completions", chatBody);

        assertThat(seen).extracting(e -> e.path(), e -> new String(e.request(), StandardCharsets.UTF_8), e -> e.status(),
                e -> new String(e.response(), StandardCharsets.UTF_8)).containsExactly(
                        tuple("/v1/chat/completions", chatBody, 200, chat.body()),
                        tuple("/v1/messages", messagesBody, 200, message.body()));
        assertThat(seen).extracting(ScriptedModelServer.Exchange::seq)
                .isEqualTo(server.requests().subList(0, 2).stream().map(RecordedRequest::seq).toList());
        assertThat(json(message.body()).path("usage").has("cache_read_input_tokens")).isTrue();
    }
}
