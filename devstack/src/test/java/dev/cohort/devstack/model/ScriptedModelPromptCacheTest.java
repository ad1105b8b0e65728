package dev.cohort.devstack.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * On the messages wire, a request whose leading messages were an earlier request's whole prompt reads that prefix
 * from the cache, in proportion to its characters, and writes the rest.
 */
class ScriptedModelPromptCacheTest extends ScriptedModelTestSupport {

    private static final String CACHE = ",\"cache_control\":{\"type\":\"ephemeral\"}";

    private static ObjectNode request(List<String> texts) {
        ObjectNode body = JSON.createObjectNode().put("model", "m").put("max_tokens", 10);
        body.putArray("system").addObject().put("type", "text").put("text", "be brief");
        ArrayNode messages = body.putArray("messages");
        for (int i = 0; i < texts.size(); i++) {
            ObjectNode block = messages.addObject().put("role", i % 2 == 0 ? "user" : "assistant").putArray("content")
                    .addObject().put("type", "text").put("text", texts.get(i));
            if (i == texts.size() - 1) {
                block.putObject("cache_control").put("type", "ephemeral");
            }
        }
        body.putObject("metadata").put("user_id", "t/lead");
        return body;
    }

    /** The prompt's length up to and including message {@code upTo}, as the server counts it (markers left out). */
    private static long length(ObjectNode request, int upTo) {
        long n = request.get("system").toString().length() + 1; // system, separator, no tools
        for (int i = 0; i <= upTo; i++) {
            n += 1 + request.path("messages").get(i).toString().replace(CACHE, "").length();
        }
        return n;
    }

    @Test
    void aRequestReadsTheLongestEarlierWholePromptFromTheCacheAndWritesTheRest() {
        server.load("{\"rules\":[{\"name\":\"ok\",\"reply\":{\"text\":\"ok\"}}]}");
        ObjectNode first = request(List.of("one"));
        ObjectNode second = request(List.of("one", "two", "three"));
        ObjectNode other = request(List.of("another", "two", "three"));

        JsonNode u1 = json(post("/v1/messages", first.toString()).body()).path("usage");
        JsonNode u2 = json(post("/v1/messages", second.toString()).body()).path("usage");
        JsonNode u3 = json(post("/v1/messages", other.toString()).body()).path("usage");

        long prompt2 = u2.path("cache_creation_input_tokens").asLong() + u2.path("cache_read_input_tokens").asLong();
        assertThat(List.of(u1.path("input_tokens").asLong(), u1.path("cache_read_input_tokens").asLong(),
                u2.path("input_tokens").asLong(), u2.path("cache_read_input_tokens").asLong(),
                u3.path("cache_read_input_tokens").asLong()))
                .containsExactly(0L, 0L, 0L, prompt2 * length(second, 0) / length(second, 2), 0L);
        assertThat(u2.path("cache_read_input_tokens").asLong()).isPositive();
    }
}
