package dev.cohort.core.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.testing.IdentityContext;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The idempotency key of a side-effecting call: who, which call, and a fingerprint of what it asked. */
class EffectKeyTest {

    private static ToolCall call(String id, String tool, String json) {
        return new ToolCall(id, tool, (ObjectNode) Json.read(json, JsonNode.class));
    }

    @Test
    void theKeyIsTheNameBasedUuidOfAgentAndCallId() {
        EffectKey key = EffectKey.of(call("call_7", "create_task", "{\"subject\":\"s\"}"), IdentityContext.lead("alpha"));

        assertThat(key.agentId()).isEqualTo("alpha/lead");
        assertThat(key.uuid()).isEqualTo(UUID.nameUUIDFromBytes("alpha/lead/call_7".getBytes(StandardCharsets.UTF_8)));
        assertThat(EffectKey.of(call("call_7", "create_task", "{\"subject\":\"s\"}"), IdentityContext.teammate("alpha", "bob"))
                .uuid()).isNotEqualTo(key.uuid());
    }

    @Test
    void theDigestIgnoresTheOrderOfObjectKeysButNotOfArrays() {
        String a = EffectKey.digest("create_task", (ObjectNode) Json.read(
                "{\"subject\":\"s\",\"blockedBy\":[\"task_1\",\"task_2\"],\"x\":{\"b\":1,\"a\":2}}", JsonNode.class));
        String sameFieldsOtherOrder = EffectKey.digest("create_task", (ObjectNode) Json.read(
                "{\"x\":{\"a\":2,\"b\":1},\"blockedBy\":[\"task_1\",\"task_2\"],\"subject\":\"s\"}", JsonNode.class));
        String otherArrayOrder = EffectKey.digest("create_task", (ObjectNode) Json.read(
                "{\"subject\":\"s\",\"blockedBy\":[\"task_2\",\"task_1\"],\"x\":{\"b\":1,\"a\":2}}", JsonNode.class));
        String otherTool = EffectKey.digest("memory_write", (ObjectNode) Json.read(
                "{\"subject\":\"s\",\"blockedBy\":[\"task_1\",\"task_2\"],\"x\":{\"b\":1,\"a\":2}}", JsonNode.class));

        assertThat(a).hasSize(64).isEqualTo(sameFieldsOtherOrder).isNotEqualTo(otherArrayOrder).isNotEqualTo(otherTool);
    }

    @Test
    void aReplayGivesTheFirstResultOnlyToTheSameRequest() {
        ToolContext lead = IdentityContext.lead("alpha");
        EffectKey first = EffectKey.of(call("c1", "create_task", "{\"subject\":\"s\"}"), lead);
        EffectRecord recorded = first.record(ToolResult.ok("Created task_1: s"));

        assertThat(EffectKey.of(call("c1", "create_task", "{\"subject\":\"s\"}"), lead).replay(recorded))
                .isEqualTo(ToolResult.ok("Created task_1: s"));
        ToolResult other = EffectKey.of(call("c1", "create_task", "{\"subject\":\"t\"}"), lead).replay(recorded);
        assertThat(other.error()).isTrue();
        assertThat(other.rule()).isEqualTo(EffectKey.REUSED_RULE);
        assertThat(other.content()).isEqualTo("Error: call id 'c1' was already used by alpha/lead for a different call"
                + " (create_task with other arguments); this create_task call was not run. A call id names exactly one"
                + " call: issue this call again as a new call");
    }

    @Test
    void aKeyWithoutCallIdIsRefused() {
        assertThatThrownBy(() -> EffectKey.of(call(" ", "create_task", "{}"), IdentityContext.lead("alpha")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("an effect key needs an agent id and a call id");
    }
}
