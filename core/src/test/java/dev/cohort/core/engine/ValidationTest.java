package dev.cohort.core.engine;

import static dev.cohort.core.engine.EngineHarness.toolResults;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.devstack.model.ScriptedModelServer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad tool calls become model-visible errors and the turn goes on. */
class ValidationTest {
    static ScriptedModelServer model;
    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        model = ScriptedModelServer.start(0);
    }

    @AfterAll
    static void stop() {
        model.close();
    }

    @Test
    void malformedJsonUnknownToolMissingArgumentWrongTypeAndDisallowedToolEachGetAnErrorAndTheTurnContinues() {
        model.reset();
        model.load("""
                {"rules":[
                 {"match":{"hasToolResult":false},"reply":{"rawArguments":"{\\"path\\": \\"a.txt\\",","toolCalls":[
                   {"id":"bad-json","name":"read_file","arguments":{}},
                   {"id":"unknown","name":"fly_to_moon","arguments":{}},
                   {"id":"missing","name":"write_file","arguments":{"path":"x.txt"}},
                   {"id":"type","name":"read_file","arguments":{"path":"a.txt","limit":"ten"}},
                   {"id":"not-allowed","name":"spawn_subagent","arguments":{"description":"help"}},
                   {"id":"extra","name":"glob","arguments":{"pattern":"*","recursive":true}}]}},
                 {"match":{"lastRole":"tool"},"reply":{"text":"I will fix my calls"}}]}""");
        AgentEngine engine = EngineHarness.engine(EngineHarness.modelClient(model), new EngineHarness.Events(),
                List.of()).build();
        LocalWorkspace ws = new LocalWorkspace(dir);
        AgentSession teammate = engine.open(AgentContext.of("default", "alice", AgentRole.TEAMMATE, ws), null);

        TurnResult r = teammate.run("do things");

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(r.text()).isEqualTo("I will fix my calls");
        assertThat(toolResults(model.requests().get(1))).satisfiesExactly(
                t -> assertThat(t).startsWith("Error: invalid arguments for read_file: arguments are not valid JSON"),
                t -> assertThat(t).startsWith("Error: unknown tool 'fly_to_moon'; available tools: ")
                        .contains("bash", "read_file").doesNotContain("spawn_subagent"),
                t -> assertThat(t).isEqualTo("Error: invalid arguments for write_file: missing required argument 'content'"),
                t -> assertThat(t).isEqualTo("Error: invalid arguments for read_file: argument 'limit' must be an integer, got a string"),
                t -> assertThat(t).startsWith("Error: tool 'spawn_subagent' is not available to this agent (teammate)"),
                t -> assertThat(t).startsWith("Error: invalid arguments for glob: unknown argument 'recursive'"));
        assertThat(ws.executed.stream().filter(e -> !e.contains(":skills-"))).isEmpty();
        assertThat(EngineHarness.toolNamesOffered(model.requests().get(0))).doesNotContain("spawn_subagent")
                .contains("todo_write", "load_skill");
    }
}
