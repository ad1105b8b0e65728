package dev.cohort.core.engine;

import dev.cohort.core.testing.ScriptedModelTestBase;
import static dev.cohort.core.engine.EngineHarness.lastContent;
import static dev.cohort.core.engine.EngineHarness.messages;
import static dev.cohort.core.engine.EngineHarness.toolResults;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.devstack.model.RecordedRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The seed's agent-loop and tool-use "try these prompts" against the scripted model over HTTP, with a local workspace. */
class LoopScenariosTest extends ScriptedModelTestBase {
    @TempDir
    Path dir;
    LocalWorkspace ws;
    EngineHarness.Events events;
    AgentSession lead;

    @BeforeEach
    void setUp() {
        ws = new LocalWorkspace(dir);
        events = new EngineHarness.Events();
        AgentEngine engine = EngineHarness.engine(EngineHarness.modelClient(model), events, List.of()).build();
        lead = engine.open(AgentContext.of("default", "lead", AgentRole.LEAD, ws), null);
    }

    @Test
    void s01CreatesHelloPyWithBashAndEndsWhenTheModelStopsCallingTools() throws Exception {
        model.load("""
                {"rules":[
                 {"match":{"lastUserMessage":"hello.py","hasToolResult":false},"reply":{"toolCalls":[{"id":"c1","name":"bash",
                   "arguments":{"command":"printf 'print(\\"Hello, World!\\")\\\\n' > hello.py"}}]}},
                 {"match":{"lastRole":"tool"},"reply":{"text":"Created hello.py"}}]}""");

        TurnResult r = lead.run("Create a file hello.py that prints \"Hello, World!\"");

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(r.text()).isEqualTo("Created hello.py");
        assertThat(r.modelCalls()).isEqualTo(2);
        assertThat(Files.readString(dir.resolve("hello.py"))).isEqualTo("print(\"Hello, World!\")\n");
        List<RecordedRequest> req = model.requests();
        assertThat(req).hasSize(2);
        assertThat(req.get(0).agent()).isEqualTo("default/lead");
        assertThat(toolResults(req.get(1))).containsExactly("(no output)");
        assertThat(events.all.stream().map(Event::type)).containsExactly(EventType.TURN_STARTED,
                EventType.ASSISTANT_MESSAGE, EventType.TOOL_CALL_STARTED, EventType.TOOL_CALL_FINISHED,
                EventType.ASSISTANT_MESSAGE, EventType.TURN_COMPLETED);
    }

    @Test
    void createsHelloPyThenReadsItBackLeavingTheFileInTheWorkspace() throws Exception {
        model.load("""
                {"rules":[
                 {"match":{"hasToolResult":false},"reply":{"toolCalls":[{"id":"w1","name":"write_file",
                   "arguments":{"path":"hello.py","content":"print(\\"Hello, World!\\")\\n"}}]}},
                 {"match":{"lastMessage":"^wrote"},"reply":{"toolCalls":[{"id":"r1","name":"read_file","arguments":{"path":"hello.py"}}]}},
                 {"match":{"lastRole":"tool"},"reply":{"text":"hello.py says: {{lastMessage}}"}}]}""");

        TurnResult r = lead.run("create hello.py that prints Hello, World!, then read it back");

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(Files.readString(dir.resolve("hello.py"))).isEqualTo("print(\"Hello, World!\")\n");
        assertThat(lastContent(model.requests().get(2))).contains("print(\"Hello, World!\")");
        assertThat(r.text()).contains("Hello, World!");
    }

    @Test
    void s02SeveralToolCallsInOneAnswerAllRunInOrderEachWithOneResult() throws Exception {
        Files.writeString(dir.resolve("README.md"), "# Demo\nA demo project\n");
        Files.writeString(dir.resolve("pyproject.toml"), "[project]\nname = \"demo\"\n");
        model.load("""
                {"rules":[
                 {"match":{"hasToolResult":false},"reply":{"toolCalls":[
                   {"id":"a","name":"read_file","arguments":{"path":"README.md"}},
                   {"id":"b","name":"read_file","arguments":{"path":"pyproject.toml"}}]}},
                 {"match":{"lastMessage":"demo\\"","lastRole":"tool"},"times":1,"reply":{"toolCalls":[
                   {"id":"c","name":"write_file","arguments":{"path":"SUMMARY.md","content":"demo: a demo project"}}]}},
                 {"match":{"lastRole":"tool"},"reply":{"text":"Summary written"}}]}""");

        TurnResult r = lead.run("Read README.md and pyproject.toml at the same time, then produce a summary file");

        assertThat(r.text()).isEqualTo("Summary written");
        RecordedRequest second = model.requests().get(1);
        List<String> ids = messages(second).stream().filter(m -> m.path("role").asText().equals("tool"))
                .map(m -> m.path("tool_call_id").asText()).toList();
        assertThat(ids).containsExactly("a", "b");
        assertThat(toolResults(second).get(0)).contains("# Demo");
        assertThat(toolResults(second).get(1)).contains("name = \"demo\"");
        assertThat(ws.executed.stream().filter(e -> !e.contains(":skills-"))).containsExactly("read_file:a", "read_file:b", "write_file:c");
        assertThat(dir.resolve("SUMMARY.md")).hasContent("demo: a demo project");
        assertThat(events.of(EventType.TOOL_CALL_FINISHED).stream().map(e -> e.data().path("callId").asText()))
                .containsExactly("a", "b", "c");
    }

    @Test
    void s02FindsPythonFilesWithGlob() throws Exception {
        Files.writeString(dir.resolve("a.py"), "");
        Files.createDirectories(dir.resolve("pkg"));
        Files.writeString(dir.resolve("pkg/b.py"), "");
        model.load("""
                {"rules":[
                 {"match":{"hasToolResult":false},"reply":{"toolCalls":[{"name":"glob","arguments":{"pattern":"**.py"}}]}},
                 {"match":{"lastRole":"tool"},"reply":{"text":"Found: {{lastMessage}}"}}]}""");

        TurnResult r = lead.run("Find all Python files in the current directory");

        assertThat(r.text()).isEqualTo("Found: a.py\npkg/b.py");
    }

    @Test
    void theTurnCompletedEventCarriesReasonAndUsage() {
        model.load("""
                {"rules":[{"reply":{"text":"hi","usage":{"prompt_tokens":12,"completion_tokens":3}}}]}""");

        lead.run("hello");

        Event done = events.of(EventType.TURN_COMPLETED).get(0);
        assertThat(done.data().path("reason").asText()).isEqualTo("completed");
        assertThat(done.data().path("usage").path("inputTokens").asLong()).isEqualTo(12);
        assertThat(done.data().path("usage").path("outputTokens").asLong()).isEqualTo(3);
        assertThat(lead.snapshot().usage().totalTokens()).isEqualTo(15);
        assertThat(lead.snapshot().turn()).isNull();
    }
}
