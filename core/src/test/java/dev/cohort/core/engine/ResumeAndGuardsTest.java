package dev.cohort.core.engine;

import static dev.cohort.core.engine.EngineHarness.lastContent;
import static dev.cohort.core.engine.EngineHarness.toolResults;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.core.protocol.EventType;
import dev.cohort.core.testing.ScriptedModelTestBase;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/** Save/restore, the model-call cap, the stuck guard, budgets and cancellation. */
class ResumeAndGuardsTest extends ScriptedModelTestBase {
    @TempDir
    Path dir;

    static final String SCENARIO = """
            {"rules":[
             {"match":{"hasToolResult":false},"reply":{"text":"step 1","toolCalls":[
               {"id":"w1","name":"write_file","arguments":{"path":"notes.txt","content":"one\\n"}},
               {"id":"b1","name":"bash","arguments":{"command":"echo two >> notes.txt"}}]}},
             {"match":{"lastMessage":"^\\\\(no output\\\\)$"},"reply":{"toolCalls":[{"id":"r1","name":"read_file","arguments":{"path":"notes.txt"}}]}},
             {"match":{"lastRole":"tool"},"reply":{"text":"notes: {{lastMessage}}"}}]}""";

    /** Thrown by the store to simulate the process dying right after a save. */
    static final class Crash extends Error {
    }

    private AgentEngine engine() {
        return EngineHarness.engine(EngineHarness.modelClient(model), new EngineHarness.Events(), List.of()).build();
    }

    @Test
    void restoringAfterAnySavedStepAndContinuingEqualsAnUninterruptedRunWithoutRepeatingACall() throws Exception {
        model.load(SCENARIO);
        Path straightDir = Files.createDirectories(dir.resolve("straight"));
        List<AgentState> saves = new ArrayList<>();
        AgentSession straight = engine().open(AgentContext.of("default", "lead", AgentRole.TEAMMATE,
                new LocalWorkspace(straightDir, false)).withStore(StateStore.of(saves::add)), null);
        TurnResult expected = straight.run("write notes then read them");
        List<Message> expectedConversation = straight.snapshot().messages();
        assertThat(expected.text()).isEqualTo("notes: " + "     1\tone\n     2\ttwo\n");

        for (int crashAt = 1; crashAt < saves.size(); crashAt++) {
            model.reset();
            model.load(SCENARIO);
            Path d = Files.createDirectories(dir.resolve("crash" + crashAt));
            LocalWorkspace ws = new LocalWorkspace(d, false);
            AtomicReference<String> lastSaved = new AtomicReference<>();
            int[] n = {0};
            int limit = crashAt;
            AgentSession doomed = engine().open(AgentContext.of("default", "lead", AgentRole.TEAMMATE, ws)
                    .withStore(step -> {
                        lastSaved.set(step.state().toJson());
                        if (++n[0] == limit) {
                            throw new Crash();
                        }
                    }), null);
            assertThatThrownBy(() -> doomed.run("write notes then read them")).isInstanceOf(Crash.class);

            AgentSession revived = engine().open(AgentContext.of("default", "lead", AgentRole.TEAMMATE, ws),
                    AgentState.fromJson(lastSaved.get()));
            TurnResult r = revived.turnInProgress() ? revived.resume() : null;

            assertThat(r).as("crash after save %d", crashAt).isNotNull();
            assertThat(r.text()).as("crash after save %d", crashAt).isEqualTo(expected.text());
            assertThat(revived.snapshot().messages()).as("crash after save %d", crashAt).isEqualTo(expectedConversation);
            assertThat(ws.executed.stream().filter(e -> !e.contains(":skills-")).toList()).as("crash after save %d", crashAt).doesNotHaveDuplicates()
                    .containsExactly("write_file:w1", "bash:b1", "read_file:r1");
            assertThat(d.resolve("notes.txt")).hasContent("one\ntwo");
        }
    }

    @Test
    void atMaxMinusOneTheAgentIsToldItIsTheLastStepAndTheTurnEndsAtTheCap() {
        model.load("""
                {"rules":[
                 {"match":{"call":1},"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo 1"}}]}},
                 {"match":{"call":2},"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo 2"}}]}},
                 {"match":{"call":3},"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo 3"}}]}}]}""");
        AgentSession s = EngineHarness.engine(EngineHarness.modelClient(model), new EngineHarness.Events(), List.of())
                .settings(EngineSettings.defaults().withMaxModelCallsPerTurn(3)).build()
                .open(AgentContext.of("default", "lead", AgentRole.LEAD, new LocalWorkspace(dir)), null);

        TurnResult r = s.run("loop forever");

        assertThat(r.reason()).isEqualTo(StopReason.MAX_MODEL_CALLS);
        assertThat(r.text()).isEqualTo("Stopped: this turn reached its limit of 3 model calls.");
        assertThat(lastContent(model.requests().get(1))).doesNotContain("last step");
        assertThat(lastContent(model.requests().get(2))).startsWith("<notice>This is your last step in this turn");
        List<Message> conv = s.snapshot().messages();
        assertThat(Conversation.repair(conv)).isSameAs(conv);
        assertThat(conv.get(conv.size() - 1).role()).isEqualTo(Message.Role.TOOL);
    }

    @Test
    void theSameCallThreeTimesInjectsANoticeAndFiveTimesEndsTheTurn() {
        model.load("""
                {"rules":[{"reply":{"toolCalls":[{"name":"read_file","arguments":{"path":"missing.txt"}}]}}]}""");
        EngineHarness.Events events = new EngineHarness.Events();
        AgentSession s = EngineHarness.engine(EngineHarness.modelClient(model), events, List.of()).build()
                .open(AgentContext.of("default", "lead", AgentRole.LEAD, new LocalWorkspace(dir)), null);

        TurnResult r = s.run("read it");

        assertThat(r.reason()).isEqualTo(StopReason.STUCK);
        assertThat(r.modelCalls()).isEqualTo(5);
        assertThat(lastContent(model.requests().get(2))).doesNotStartWith("<notice>");
        assertThat(lastContent(model.requests().get(3))).startsWith("<notice>The last 3 tool calls failed with the same error");
        assertThat(events.of(EventType.TURN_COMPLETED).get(0).data().path("reason").asText()).isEqualTo("stuck");
    }

    @Test
    void aTokenBudgetPerTurnEndsTheTurnWithAClearMessageAndCostIsReported() {
        model.load("""
                {"rules":[
                 {"match":{"call":1},"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo 1"}}],"usage":{"prompt_tokens":600,"completion_tokens":100}}},
                 {"match":{"call":2},"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo 2"}}],"usage":{"prompt_tokens":700,"completion_tokens":100}}}]}""");
        EngineSettings settings = EngineSettings.defaults().withBudgets(1000, 0)
                .withPrices(Map.of("scripted", new EngineSettings.ModelPrice(1.0, 2.0)));
        EngineHarness.Events events = new EngineHarness.Events();
        AgentSession s = EngineHarness.engine(EngineHarness.modelClient(model), events, List.of()).settings(settings)
                .build().open(AgentContext.of("default", "lead", AgentRole.LEAD, new LocalWorkspace(dir)), null);

        TurnResult r = s.run("work");

        assertThat(r.reason()).isEqualTo(StopReason.BUDGET_EXCEEDED);
        assertThat(r.text()).isEqualTo("Stopped: this turn used 1500 tokens, its budget is 1000.");
        assertThat(r.usage().costUsd()).isCloseTo((1300 * 1.0 + 200 * 2.0) / 1_000_000, Offset.offset(1e-12));
        assertThat(model.requests()).hasSize(2);
    }

    @Test
    void cancellingDuringAToolCallFinishesThatCallRecordsTheRestAsNotRunAndKeepsTheConversationValid() {
        model.load("""
                {"rules":[{"match":{"hasToolResult":false},"reply":{"toolCalls":[
                   {"id":"x","name":"stopper","arguments":{}},
                   {"id":"y","name":"write_file","arguments":{"path":"late.txt","content":"x"}}]}}]}""");
        AtomicReference<AgentSession> self = new AtomicReference<>();
        Tool stopper = new Tool() {
            public String name() {
                return "stopper";
            }

            public ToolSpecification spec() {
                return ToolSchemas.spec("stopper", "cancels the turn", ToolSchemas.object().build());
            }

            public boolean isMutating() {
                return false;
            }

            public ToolResult execute(ToolCall call, ToolContext ctx) {
                self.get().cancel();
                return ToolResult.ok("stopping");
            }
        };
        AgentSession s = EngineHarness.engine(EngineHarness.modelClient(model), new EngineHarness.Events(), List.of(), stopper)
                .build().open(AgentContext.of("default", "lead", AgentRole.LEAD, new LocalWorkspace(dir))
                        .withAllowlist(Set.of("stopper", "write_file")), null);
        self.set(s);

        TurnResult r = s.run("go");

        assertThat(r.reason()).isEqualTo(StopReason.CANCELLED);
        assertThat(dir.resolve("late.txt")).doesNotExist();
        List<Message> conv = s.snapshot().messages();
        assertThat(conv.subList(conv.size() - 2, conv.size())).extracting(Message::content)
                .containsExactly("stopping", "not run: the turn was cancelled");
        assertThat(Conversation.repair(conv)).isSameAs(conv);
        assertThat(s.turnInProgress()).isFalse();
    }

    @Test
    void aFailingModelCallEndsTheTurnWithAnErrorEvent() {
        model.load("""
                {"rules":[{"reply":{"error":{"preset":"invalid_api_key"}}}]}""");
        EngineHarness.Events events = new EngineHarness.Events();
        AgentSession s = EngineHarness.engine(EngineHarness.modelClient(model), events, List.of()).build()
                .open(AgentContext.of("default", "lead", AgentRole.LEAD, new LocalWorkspace(dir)), null);

        TurnResult r = s.run("hi");

        assertThat(r.reason()).isEqualTo(StopReason.ERROR);
        assertThat(events.of(EventType.ERROR)).hasSize(1);
        assertThat(s.turnInProgress()).isFalse();
    }
}
