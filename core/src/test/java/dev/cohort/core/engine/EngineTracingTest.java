package dev.cohort.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.testing.ScriptedModelTestBase;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.trace.Tracing;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/**
 * The engine's spans captured by the SDK's in-memory exporter: a turn under the ingress span its
 * host hands over, a model call per step with the gen_ai attributes and the retry count, a tool call per executed
 * call; and the default {@link Tracing#NOOP} records nothing.
 */
class EngineTracingTest extends ScriptedModelTestBase {
    @TempDir
    Path dir;
    InMemorySpanExporter exporter;
    OpenTelemetrySdk otel;
    final List<Duration> sleeps = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void setUp() {
        exporter = InMemorySpanExporter.create();
        otel = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build()).build();
    }

    private AgentSession lead(Tracing tracing) {
        AgentEngine engine = EngineHarness.engine(EngineHarness.modelClient(model), new EngineHarness.Events(), List.of())
                .tracing(tracing).sleeper(sleeps::add).random(() -> 0.0).build();
        return engine.open(AgentContext.of("t1", "lead", AgentRole.LEAD, new LocalWorkspace(dir)), null);
    }

    @Test
    void aTurnUnderItsIngressSpanHasAModelCallPerStepAndAToolCallWithTheGenAiAttributes() {
        model.load("""
                {"rules":[
                 {"times":1,"reply":{"error":{"preset":"rate_limit"}}},
                 {"match":{"hasToolResult":false},"reply":{"toolCalls":[{"id":"c1","name":"bash",
                   "arguments":{"command":"printf '%s' \\"$TRACEPARENT\\""}}]}},
                 {"match":{"lastRole":"tool"},"reply":{"text":"done"}}]}""");
        Tracing tracing = new Tracing(otel);
        Span ingress = tracing.start("POST /prompts", SpanKind.SERVER);
        tracing.ingress("t1", "lead", Context.current().with(ingress));
        ingress.end();

        TurnResult r;
        try (Scope ignored = tracing.takeIngress("t1", "lead").makeCurrent()) {
            r = lead(tracing).run("run it");
        }

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        List<SpanData> spans = exporter.getFinishedSpanItems();
        SpanData turn = one(spans, "invoke_agent lead");
        assertThat(turn.getParentSpanId()).isEqualTo(ingress.getSpanContext().getSpanId());
        assertThat(turn.getTraceId()).isEqualTo(ingress.getSpanContext().getTraceId());
        assertThat(turn.getAttributes().get(AttributeKey.stringKey("cohort.team"))).isEqualTo("t1");
        assertThat(turn.getAttributes().get(AttributeKey.stringKey("cohort.stop_reason"))).isEqualTo("completed");

        List<SpanData> chats = spans.stream().filter(s -> s.getName().startsWith("chat")).toList();
        assertThat(chats).hasSize(2).allSatisfy(c -> {
            assertThat(c.getParentSpanId()).isEqualTo(turn.getSpanId());
            assertThat(c.getKind()).isEqualTo(SpanKind.CLIENT);
            assertThat(c.getAttributes().get(AttributeKey.stringKey("gen_ai.request.model"))).isEqualTo("scripted");
            assertThat(c.getAttributes().get(AttributeKey.longKey("gen_ai.usage.input_tokens"))).isPositive();
            assertThat(c.getAttributes().get(AttributeKey.longKey("gen_ai.usage.output_tokens"))).isNotNull();
        });
        // the first call was rate-limited once, then answered with a tool call
        SpanData first = chats.stream().min((a, b) -> Long.compare(a.getStartEpochNanos(), b.getStartEpochNanos()))
                .orElseThrow();
        assertThat(first.getAttributes().get(AttributeKey.longKey("cohort.retry_count"))).isEqualTo(1L);
        assertThat(first.getAttributes().get(AttributeKey.stringArrayKey("gen_ai.response.finish_reasons")))
                .containsExactly("tool_calls");

        SpanData tool = one(spans, "execute_tool bash");
        assertThat(tool.getParentSpanId()).isEqualTo(turn.getSpanId());
        assertThat(tool.getAttributes().get(AttributeKey.stringKey("gen_ai.tool.call.id"))).isEqualTo("c1");
        assertThat(tool.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        // no prompt text on any span
        assertThat(spans).allSatisfy(s -> assertThat(s.getAttributes().asMap().values().toString()).doesNotContain("run it"));
    }

    @Test
    void aToolErrorMarksItsSpanByRuleNotByText() {
        model.load("""
                {"rules":[
                 {"match":{"hasToolResult":false},"reply":{"toolCalls":[{"id":"c1","name":"read_file",
                   "arguments":{"path":"missing-secret-name.txt"}}]}},
                 {"match":{"lastRole":"tool"},"reply":{"text":"done"}}]}""");

        lead(new Tracing(otel)).run("read it");

        SpanData tool = one(exporter.getFinishedSpanItems(), "execute_tool read_file");
        assertThat(tool.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(tool.getAttributes().get(AttributeKey.stringKey("cohort.tool.error"))).isNotBlank();
        assertThat(tool.getAttributes().asMap().values().toString()).doesNotContain("missing-secret-name");
    }

    @Test
    void theDefaultNoopTracingRecordsNothingAndKeepsNoIngress() {
        model.load("""
                {"rules":[{"reply":{"text":"ok"}}]}""");
        Tracing.NOOP.ingress("t1", "lead", Context.current().with(Span.wrap(
                SpanContext.getInvalid())));

        TurnResult r = lead(Tracing.NOOP).run("hi");

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(exporter.getFinishedSpanItems()).isEmpty();
        assertThat(Tracing.traceparent()).isNull();
        assertThat(Tracing.NOOP.takeIngress("t1", "lead")).isSameAs(Context.current());
    }

    private static SpanData one(List<SpanData> spans, String name) {
        List<SpanData> found = spans.stream().filter(s -> s.getName().equals(name)).toList();
        assertThat(found).as("spans named " + name + " among " + spans.stream().map(SpanData::getName).toList())
                .hasSize(1);
        return found.getFirst();
    }
}
