package dev.cohort.core.tools.memory;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.memory.InMemoryMemoryStore;
import dev.cohort.core.memory.Memory;
import dev.cohort.core.memory.MemoryStore;
import dev.cohort.core.memory.MemoryType;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.testing.IdentityContext;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** memory_write / memory_delete: "remember X" and "forget X", per team. */
class MemoryToolsTest {
    final Map<String, MemoryStore> stores = Map.of("t1", new InMemoryMemoryStore(), "t2", new InMemoryMemoryStore());
    final MemoryWriteTool write = new MemoryWriteTool(stores::get);
    final MemoryDeleteTool delete = new MemoryDeleteTool(stores::get);

    static ToolCall call(String name, String json) {
        return new ToolCall("c1", name, (ObjectNode) Json.read(json, com.fasterxml.jackson.databind.JsonNode.class));
    }

    @Test
    void remembersUpdatesAndForgetsInTheCallersTeamOnly() {
        ToolResult saved = write.execute(call("memory_write", """
                {"name":"Prefers Tabs","type":"user","description":"tabs","body":"Indent with tabs."}"""), ctx("t1"));
        assertThat(saved).isEqualTo(ToolResult.ok("Saved memory 'prefers-tabs' (user)."));
        assertThat(write.execute(call("memory_write", """
                {"name":"prefers-tabs","type":"user","description":"tabs","body":"Tabs, width 4."}"""), ctx("t1")))
                .isEqualTo(ToolResult.ok("Updated memory 'prefers-tabs' (user)."));
        assertThat(stores.get("t1").all()).containsExactly(new Memory("prefers-tabs", MemoryType.USER, "tabs",
                "Tabs, width 4."));
        assertThat(stores.get("t2").all()).isEmpty();

        assertThat(delete.execute(call("memory_delete", "{\"name\":\"nope\"}"), ctx("t1")).content())
                .isEqualTo("Error: no memory named 'nope'; existing: prefers-tabs");
        assertThat(delete.execute(call("memory_delete", "{\"name\":\"Prefers Tabs\"}"), ctx("t1")))
                .isEqualTo(ToolResult.ok("Deleted memory 'prefers-tabs'."));
        assertThat(stores.get("t1").all()).isEmpty();
    }

    @Test
    void aMemoryWithoutBodyIsAModelVisibleError() {
        ToolResult r = write.execute(call("memory_write", """
                {"name":"x","type":"user","description":"d","body":"  "}"""), ctx("t1"));
        assertThat(r.error()).isTrue();
        assertThat(r.content()).isEqualTo("Error: a memory needs a description and a body");
    }

    static ToolContext ctx(String team) {
        return IdentityContext.lead(team);
    }
}
