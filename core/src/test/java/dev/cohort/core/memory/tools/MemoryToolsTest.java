package dev.cohort.core.memory.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.memory.FileMemoryStore;
import dev.cohort.core.memory.InMemoryMemoryStore;
import dev.cohort.core.memory.Memory;
import dev.cohort.core.memory.MemoryStore;
import dev.cohort.core.memory.MemoryType;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.testing.IdentityContext;
import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** memory_write / memory_delete: "remember X" and "forget X", per team. */
class MemoryToolsTest {
    final Map<String, MemoryStore> stores = Map.of("t1", new InMemoryMemoryStore(), "t2", new InMemoryMemoryStore());
    /** When every memory in these tests is written. */
    static final Instant AT = Instant.parse("2026-03-01T09:30:00Z");
    final MemoryWriteTool write = new MemoryWriteTool(stores::get, () -> AT);
    final MemoryDeleteTool delete = new MemoryDeleteTool(stores::get);

    private static final AtomicInteger CALL_IDS = new AtomicInteger();

    /** A new call (a new call id); the idempotency tests repeat one call object on purpose. */
    static ToolCall call(String name, String json) {
        return new ToolCall("c" + CALL_IDS.incrementAndGet(), name,
                (ObjectNode) Json.read(json, JsonNode.class));
    }

    /** Both core stores: in memory, and files (whose records are files beside the memories). */
    static Stream<Arguments> storeKinds() {
        return Stream.of(Arguments.of("in-memory"), Arguments.of("files"));
    }

    private Function<String, MemoryStore> storesOf(String kind, Path dir) {
        if (kind.equals("files")) {
            return team -> new FileMemoryStore(dir.resolve(team));
        }
        Map<String, MemoryStore> byTeam = new ConcurrentHashMap<>();
        return team -> byTeam.computeIfAbsent(team, t -> new InMemoryMemoryStore());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("storeKinds")
    void aRepeatedMemoryWriteGetsTheFirstResultAndWritesNothingMore(String kind, @TempDir Path dir) {
        Function<String, MemoryStore> teams = storesOf(kind, dir);
        MemoryWriteTool tool = new MemoryWriteTool(teams, () -> AT);
        ToolCall first = call("memory_write", """
                {"name":"prefers-tabs","type":"user","description":"tabs","body":"Indent with tabs."}""");
        assertThat(tool.execute(first, ctx("t1"))).isEqualTo(ToolResult.ok("Saved memory 'prefers-tabs' (user)."));
        // another call changes the memory before the first call is repeated (a resumed turn of a crashed host)
        tool.execute(call("memory_write", """
                {"name":"prefers-tabs","type":"user","description":"tabs","body":"Tabs, width 4."}"""), ctx("t1"));

        ToolResult repeat = tool.execute(first, ctx("t1"));

        assertThat(repeat).isEqualTo(ToolResult.ok("Saved memory 'prefers-tabs' (user)."));
        // the memory says who wrote it and when, in either store
        assertThat(teams.apply("t1").all()).containsExactly(new Memory("prefers-tabs", MemoryType.USER, "tabs",
                "Tabs, width 4.", "t1/lead (memory_write)", AT));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("storeKinds")
    void aRepeatedMemoryDeleteSaysDeletedAndDeletesNothingMore(String kind, @TempDir Path dir) {
        Function<String, MemoryStore> teams = storesOf(kind, dir);
        MemoryWriteTool write = new MemoryWriteTool(teams);
        MemoryDeleteTool forget = new MemoryDeleteTool(teams);
        String tabs = """
                {"name":"prefers-tabs","type":"user","description":"tabs","body":"Indent with tabs."}""";
        write.execute(call("memory_write", tabs), ctx("t1"));
        ToolCall delete = call("memory_delete", "{\"name\":\"prefers-tabs\"}");
        assertThat(forget.execute(delete, ctx("t1"))).isEqualTo(ToolResult.ok("Deleted memory 'prefers-tabs'."));
        write.execute(call("memory_write", tabs), ctx("t1")); // remembered again since

        assertThat(forget.execute(delete, ctx("t1"))).isEqualTo(ToolResult.ok("Deleted memory 'prefers-tabs'."));
        assertThat(teams.apply("t1").all()).extracting(Memory::name).containsExactly("prefers-tabs");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("storeKinds")
    void aCallIdReusedWithOtherArgumentsIsRefusedAndChangesNothing(String kind, @TempDir Path dir) {
        Function<String, MemoryStore> teams = storesOf(kind, dir);
        MemoryWriteTool write = new MemoryWriteTool(teams);
        ToolCall first = call("memory_write", """
                {"name":"prefers-tabs","type":"user","description":"tabs","body":"Indent with tabs."}""");
        write.execute(first, ctx("t1"));
        ToolCall sameIdOtherArgs = new ToolCall(first.id(), "memory_write", (ObjectNode) Json.read("""
                {"name":"prefers-spaces","type":"user","description":"spaces","body":"Indent with spaces."}""",
                JsonNode.class));
        ToolCall sameIdOtherTool = new ToolCall(first.id(), "memory_delete", (ObjectNode) Json.read(
                "{\"name\":\"prefers-tabs\"}", JsonNode.class));

        ToolResult reused = write.execute(sameIdOtherArgs, ctx("t1"));
        ToolResult otherTool = new MemoryDeleteTool(teams).execute(sameIdOtherTool, ctx("t1"));

        assertThat(reused).isEqualTo(ToolResult.error(EffectKey.REUSED_RULE, "call id '" + first.id() + "' was already used"
                + " by t1/lead for a different call (memory_write with other arguments); this memory_write call was not"
                + " run. A call id names exactly one call: issue this call again as a new call"));
        assertThat(otherTool.rule()).isEqualTo(EffectKey.REUSED_RULE);
        assertThat(otherTool.content()).contains("for a different call (memory_write); this memory_delete call was not run");
        assertThat(teams.apply("t1").all()).extracting(Memory::name).containsExactly("prefers-tabs");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("storeKinds")
    void theSameCallIdOfAnotherAgentIsAnotherCall(String kind, @TempDir Path dir) {
        Function<String, MemoryStore> teams = storesOf(kind, dir);
        MemoryWriteTool write = new MemoryWriteTool(teams);
        ToolCall c = call("memory_write", """
                {"name":"prefers-tabs","type":"user","description":"tabs","body":"Indent with tabs."}""");
        write.execute(c, ctx("t1"));

        assertThat(write.execute(c, IdentityContext.teammate("t1", "alice")))
                .isEqualTo(ToolResult.ok("Updated memory 'prefers-tabs' (user)."));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("storeKinds")
    void aFailedDeleteIsNotRecordedSoItsRepeatIsAskedAgain(String kind, @TempDir Path dir) {
        Function<String, MemoryStore> teams = storesOf(kind, dir);
        ToolCall delete = call("memory_delete", "{\"name\":\"prefers-tabs\"}");
        assertThat(new MemoryDeleteTool(teams).execute(delete, ctx("t1")).rule()).isEqualTo("memory");
        new MemoryWriteTool(teams).execute(call("memory_write", """
                {"name":"prefers-tabs","type":"user","description":"tabs","body":"Indent with tabs."}"""), ctx("t1"));

        assertThat(new MemoryDeleteTool(teams).execute(delete, ctx("t1")))
                .isEqualTo(ToolResult.ok("Deleted memory 'prefers-tabs'."));
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
                "Tabs, width 4.", "t1/lead (memory_write)", AT));
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
