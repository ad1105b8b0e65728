package dev.cohort.core.memory;

import dev.cohort.core.engine.AgentContext;
import dev.cohort.core.engine.AgentEngine;
import dev.cohort.core.engine.AgentSession;
import dev.cohort.core.engine.ModelClient;
import dev.cohort.core.llm.GatewayModelClient;
import dev.cohort.core.llm.LlmGateway;
import dev.cohort.core.llm.LlmSettings;
import dev.cohort.core.memory.tools.MemoryDeleteTool;
import dev.cohort.core.memory.tools.MemoryWriteTool;
import dev.cohort.core.testing.ScriptedModelTestBase;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import dev.cohort.core.tools.workspace.WorkspaceToolsFixture;
import dev.cohort.devstack.model.RecordedRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shared fixture of the memory tests: a scripted model server, a file memory store in a temp dir, engines that share
 * only that store (a new engine = a restarted process), and background work run when the test says so.
 */
public abstract class MemoryTestBase extends ScriptedModelTestBase {
    @TempDir
    protected Path dir;
    protected FileMemoryStore store;
    protected final List<Runnable> background = new ArrayList<>();

    @BeforeEach
    void setUp() {
        store = new FileMemoryStore(dir.resolve("memory"));
    }

    protected ModelClient client() {
        return new GatewayModelClient(new LlmGateway(new LlmSettings(model.baseUrl(), "sk-test", "scripted",
                Optional.empty(), Duration.ofSeconds(20))));
    }

    /** A fresh engine and lead session (a "process"), sharing only the memory store. */
    protected AgentSession newSession(WorkspaceToolExecutor ws) {
        return newSession(ws, store);
    }

    /** A fresh engine and lead session whose prompt, tools and extraction use {@code memories}. */
    protected AgentSession newSession(WorkspaceToolExecutor ws, MemoryStore memories) {
        MemoryManager memory = MemoryManager.builder().store(memories).model(client()).executor(background::add).build();
        AgentEngine engine = AgentEngine.builder().model(client())
                .tools(ToolRegistry.of(List.of(WorkspaceToolsFixture.tool("write_file"), new MemoryWriteTool(t -> memories),
                        new MemoryDeleteTool(t -> memories))))
                .memory(memory).bundledSkills(List.of()).build();
        // the lead's default allowlist includes memory_write / memory_delete
        return engine.open(AgentContext.of("default", "lead", AgentRole.LEAD, ws), null);
    }

    /** Runs the background work (memory extraction, consolidation) queued so far. */
    protected void runBackground() {
        List<Runnable> r = List.copyOf(background);
        background.clear();
        r.forEach(Runnable::run);
    }

    protected static String system(RecordedRequest r) {
        return StreamSupport.stream(r.body().path("messages").spliterator(), false)
                .filter(m -> m.path("role").asText().equals("system")).map(m -> m.path("content").asText())
                .findFirst().orElse("");
    }

    /** The {@code <memories>} block a request carried ahead of the conversation ("" when none). */
    protected static String memories(RecordedRequest r) {
        return StreamSupport.stream(r.body().path("messages").spliterator(), false)
                .filter(m -> m.path("role").asText().equals("user")).map(m -> m.path("content").asText())
                .findFirst().filter(c -> c.startsWith("<memories>")).orElse("");
    }

    protected List<RecordedRequest> requests(String systemRegex) {
        return model.requests().stream().filter(r -> system(r).matches("(?s).*" + systemRegex + ".*")).toList();
    }
}
