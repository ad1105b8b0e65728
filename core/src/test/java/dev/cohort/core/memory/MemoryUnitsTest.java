package dev.cohort.core.memory;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.AgentContext;
import dev.cohort.core.engine.AgentEngine;
import dev.cohort.core.engine.AgentSession;
import dev.cohort.core.engine.GatewayModelClient;
import dev.cohort.core.engine.ModelClient;
import dev.cohort.core.engine.StopReason;
import dev.cohort.core.llm.LlmGateway;
import dev.cohort.core.llm.LlmSettings;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.Toolsets;
import dev.cohort.core.tools.memory.MemoryDeleteTool;
import dev.cohort.core.tools.memory.MemoryWriteTool;
import dev.cohort.core.tools.workspace.WriteFileTool;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import dev.cohort.devstack.model.RecordedRequest;
import dev.cohort.devstack.model.ScriptedModelServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Consolidation that cannot wipe the store (against the scripted model), JSON-array parsing, names, frontmatter. */
class MemoryUnitsTest {
    static ScriptedModelServer model;
    @TempDir
    Path dir;
    FileMemoryStore store;
    final List<Runnable> background = new ArrayList<>();

    @BeforeAll
    static void start() {
        model = ScriptedModelServer.start(0);
    }

    @AfterAll
    static void stop() {
        model.close();
    }

    @BeforeEach
    void setUp() {
        model.reset();
        store = new FileMemoryStore(dir.resolve("memory"));
    }

    ModelClient client() {
        return new GatewayModelClient(new LlmGateway(new LlmSettings(model.baseUrl(), "sk-test", "scripted",
                Optional.empty(), Duration.ofSeconds(20))));
    }

    /** A fresh engine and lead session (a "process"), sharing only the memory store. */
    AgentSession newSession(WorkspaceToolExecutor ws) {
        MemoryManager memory = MemoryManager.builder().store(store).model(client()).executor(background::add).build();
        AgentEngine engine = AgentEngine.builder().model(client())
                .tools(ToolRegistry.of(List.of(new WriteFileTool(), new MemoryWriteTool(t -> store),
                        new MemoryDeleteTool(t -> store))))
                .memory(memory).bundledSkills(List.of()).build();
        Set<String> allow = new HashSet<>(Toolsets.LEAD);
        allow.addAll(List.of(MemoryWriteTool.NAME, MemoryDeleteTool.NAME));
        return engine.open(AgentContext.of("default", "lead", AgentRole.LEAD, ws).withAllowlist(allow), null);
    }

    void runBackground() {
        List<Runnable> r = List.copyOf(background);
        background.clear();
        r.forEach(Runnable::run);
    }

    static String system(RecordedRequest r) {
        return StreamSupport.stream(r.body().path("messages").spliterator(), false)
                .filter(m -> m.path("role").asText().equals("system")).map(m -> m.path("content").asText())
                .findFirst().orElse("");
    }

    List<RecordedRequest> requests(String systemRegex) {
        return model.requests().stream().filter(r -> system(r).matches("(?s).*" + systemRegex + ".*")).toList();
    }

    @Test
    void consolidationRefusesAnswersThatWouldWipeTheStoreAndAppliesAGoodOne() {
        for (int i = 0; i < 31; i++) {
            store.put(new Memory("fact-" + i, MemoryType.PROJECT, "fact number " + i, "body " + i));
        }
        StringBuilder twenty = new StringBuilder("[");
        for (int i = 0; i < 20; i++) {
            twenty.append(i == 0 ? "" : ",").append("{\\\"name\\\":\\\"merged-").append(i)
                    .append("\\\",\\\"type\\\":\\\"project\\\",\\\"description\\\":\\\"merged ").append(i)
                    .append("\\\",\\\"body\\\":\\\"b\\\"}");
        }
        twenty.append("]");
        model.load("""
                {"rules":[
                 {"times":1,"reply":{"text":"[]"}},
                 {"times":1,"reply":{"text":"Sure! [{\\"name\\": oops"}},
                 {"times":1,"reply":{"text":"[{\\"name\\":\\"only\\",\\"type\\":\\"project\\",\\"description\\":\\"d\\",\\"body\\":\\"b\\"}]"}},
                 {"reply":{"text":"%s"}}]}""".formatted(twenty));
        MemoryManager m = MemoryManager.builder().store(store).model(client()).build();

        assertThat(m.consolidate("default", "lead", "default/lead")).isEqualTo(
                "refused: the answer kept 0 of 31 memories (more than half would be dropped)");
        assertThat(m.consolidate("default", "lead", "default/lead")).isEqualTo(
                "refused: the answer held no JSON array");
        assertThat(m.consolidate("default", "lead", "default/lead")).startsWith("refused: the answer kept 1 of 31");
        assertThat(store.all()).hasSize(31);
        assertThat(m.consolidate("default", "lead", "default/lead")).isEqualTo("applied 31 → 20");
        assertThat(store.all()).extracting(Memory::name).contains("merged-1", "merged-19").hasSize(20);
        assertThat(m.consolidate("default", "lead", "default/lead")).isEqualTo("skipped"); // 20 ≤ 30: hysteresis
        assertThat(model.requests()).hasSize(4);
    }

    @Test
    void jsonArraysAreFoundPastBracketedProseAndStrings() {
        assertThat(JsonArrays.find("I think [a] matters… so: [0, 1]", JsonNode::isArray)).get().asString()
                .isEqualTo("[0,1]");
        assertThat(JsonArrays.find("[{\"body\":\"a ] inside\"}] and [2]", JsonNode::isArray)).get()
                .satisfies(n -> assertThat(n.get(0).path("body").asText()).isEqualTo("a ] inside"));
        assertThat(JsonArrays.find("no array here", JsonNode::isArray)).isEmpty();
    }

    @Test
    void namesAreSluggedCappedAndFrontmatterSurvivesHostileValues() {
        assertThat(MemoryNames.slug("../..\\Con")).isEqualTo("con-1");
        assertThat(MemoryNames.slug("User Preference: Tabs!")).isEqualTo("user-preference-tabs");
        assertThat(MemoryNames.slug("MEMORY")).isEqualTo("memory-1");
        assertThat(MemoryNames.slug("x".repeat(100))).hasSize(MemoryNames.MAX_LENGTH);
        assertThat(MemoryNames.unique("a", Set.of("a", "a-2"))).isEqualTo("a-3");
        Memory hostile = new Memory("n", MemoryType.FEEDBACK, "line one\n---\ntype: project # comment",
                "body\n---\nmore");
        assertThat(MemoryFormat.parse(MemoryFormat.render(hostile), "n")).contains(hostile);
    }
}
