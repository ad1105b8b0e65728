package dev.cohort.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.engine.EngineMetrics.ModelOutcome;
import dev.cohort.core.engine.EngineMetrics.ToolOutcome;
import dev.cohort.core.engine.recovery.ModelFailure;
import dev.cohort.core.testing.ScriptedModelTestBase;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.PermissionSubject;
import dev.cohort.core.tools.ToolResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jboss.logging.MDC;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/**
 * The engine's observation points ({@link EngineMetrics}) and its log context ({@link LogContext}) against the
 * scripted model over HTTP: every model attempt, tool call and turn end is reported once with a bounded label.
 */
class EngineMetricsTest extends ScriptedModelTestBase {
    @TempDir
    Path dir;
    final Recording metrics = new Recording();

    /** Records what the engine reports. */
    static final class Recording implements EngineMetrics {
        final List<String> models = Collections.synchronizedList(new ArrayList<>());
        final List<String> tools = Collections.synchronizedList(new ArrayList<>());
        final List<String> turns = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void modelCall(String model, ModelOutcome outcome, Duration took) {
            assertThat(took).isPositive();
            models.add(model + ":" + outcome.label());
        }

        @Override
        public void toolCall(String tool, ToolOutcome outcome, Duration took) {
            assertThat(took.isNegative()).isFalse();
            tools.add(tool + ":" + outcome.label());
        }

        @Override
        public void turnEnded(StopReason reason, Duration took) {
            assertThat(took).isPositive();
            turns.add(reason.wire());
        }
    }

    @Test
    void everyModelAttemptToolCallAndTurnEndIsReportedOnceWithItsOutcome() {
        List<Map<String, String>> seenContext = Collections.synchronizedList(new ArrayList<>());
        EngineSeamsTest.TestTool probe = new EngineSeamsTest.TestTool("probe", false, c -> PermissionSubject.NONE,
                (c, ctx) -> {
                    seenContext.add(Map.of("team", String.valueOf(MDC.get("team")), "turn", String.valueOf(MDC.get("turn")),
                            "call", String.valueOf(MDC.get("call"))));
                    return c.args().path("n").asInt() == 2 ? ToolResult.error("test", "two is refused")
                            : ToolResult.ok("fine");
                });
        model.load("""
                {"rules":[
                 {"times":1,"reply":{"error":{"preset":"rate_limit"}}},
                 {"match":{"call":2},"reply":{"toolCalls":[
                   {"id":"c1","name":"probe","arguments":{"n":1}},
                   {"id":"c2","name":"probe","arguments":{"n":2}},
                   {"id":"c3","name":"made_up_tool_name","arguments":{}}]}},
                 {"reply":{"text":"done"}}]}""");
        AgentEngine engine = EngineHarness.engine(EngineHarness.modelClient(model), new EngineHarness.Events(), List.of(),
                probe).sleeper(d -> { }).metrics(metrics).build();
        AgentSession s = engine.open(AgentContext.of("metrics-team", "lead", AgentRole.LEAD, new LocalWorkspace(dir))
                .withAllowlist(Set.of("probe", "bash")), null);

        TurnResult r;
        try (LogContext.Scope agent = LogContext.agent("metrics-team", "lead")) {
            r = s.run("go");
        }

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(metrics.models).containsExactly("default:rate_limited", "scripted:ok", "scripted:ok");
        assertThat(metrics.tools).containsExactly("probe:ok", "probe:error", "unknown:error");
        assertThat(metrics.turns).containsExactly("completed");
        assertThat(seenContext).containsExactly(
                Map.of("team", "metrics-team", "turn", r.turnId(), "call", "c1"),
                Map.of("team", "metrics-team", "turn", r.turnId(), "call", "c2"));
        // the scopes restore what was there: nothing of the turn is left on the thread
        assertThat(MDC.get("turn")).isNull();
        assertThat(MDC.get("call")).isNull();
        assertThat(MDC.get("team")).isNull();
    }

    @Test
    void aFailureKindMapsToItsOutcomeLabel() {
        assertThat(ModelOutcome.of(ModelFailure.Kind.OVERLOADED).label())
                .isEqualTo("overloaded");
        assertThat(ModelOutcome.of(ModelFailure.Kind.SERVER).label())
                .isEqualTo("server_error");
        assertThat(ModelOutcome.of(ModelFailure.Kind.CONNECTION).label())
                .isEqualTo("timeout");
        assertThat(ModelOutcome.of(ModelFailure.Kind.AUTH).label()).isEqualTo("other");
        assertThat(ToolOrchestrator.outcome(ToolResult.error("permission:deny", "no")).label()).isEqualTo("denied");
        assertThat(ToolOrchestrator.outcome(ToolResult.error("infrastructure", "down")).label())
                .isEqualTo("infrastructure");
    }
}
