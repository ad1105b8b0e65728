package dev.cohort.core.engine;

import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.trace.Tracing;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import java.util.List;

/**
 * The engine's spans ({@link Tracing}): names and attributes in one place, so the loop's call sites stay one line
 * each. Attribute names follow the OpenTelemetry GenAI semantic conventions where there is one ({@code gen_ai.*});
 * Cohort's own are {@code cohort.*}. No prompt text, tool argument or tool output is ever put on a span.
 */
final class EngineSpans {
    static final AttributeKey<String> TEAM = AttributeKey.stringKey("cohort.team");
    static final AttributeKey<String> AGENT = AttributeKey.stringKey("cohort.agent");
    static final AttributeKey<String> TURN = AttributeKey.stringKey("cohort.turn_id");
    static final AttributeKey<Boolean> SUBAGENT = AttributeKey.booleanKey("cohort.subagent");
    static final AttributeKey<String> STOP_REASON = AttributeKey.stringKey("cohort.stop_reason");
    static final AttributeKey<Long> MODEL_CALLS = AttributeKey.longKey("cohort.model_calls");
    static final AttributeKey<String> OPERATION = AttributeKey.stringKey("gen_ai.operation.name");
    static final AttributeKey<String> AGENT_NAME = AttributeKey.stringKey("gen_ai.agent.name");
    static final AttributeKey<String> REQUEST_MODEL = AttributeKey.stringKey("gen_ai.request.model");
    static final AttributeKey<String> RESPONSE_MODEL = AttributeKey.stringKey("gen_ai.response.model");
    static final AttributeKey<Long> INPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.input_tokens");
    static final AttributeKey<Long> OUTPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.output_tokens");
    static final AttributeKey<List<String>> FINISH_REASONS = AttributeKey.stringArrayKey("gen_ai.response.finish_reasons");
    static final AttributeKey<Long> RETRY_COUNT = AttributeKey.longKey("cohort.retry_count");
    static final AttributeKey<String> TOOL_NAME = AttributeKey.stringKey("gen_ai.tool.name");
    static final AttributeKey<String> TOOL_CALL_ID = AttributeKey.stringKey("gen_ai.tool.call.id");
    /** The MCP server of an MCP tool's call (no semantic convention names the server yet). */
    static final AttributeKey<String> MCP_SERVER = AttributeKey.stringKey("cohort.mcp.server");
    /** OTel GenAI: {@code extension} for a tool that runs outside the agent (an MCP server's). */
    static final AttributeKey<String> TOOL_TYPE = AttributeKey.stringKey("gen_ai.tool.type");
    static final AttributeKey<String> TOOL_ERROR = AttributeKey.stringKey("cohort.tool.error");

    private EngineSpans() {
    }

    /** {@code invoke_agent <agent>}: one turn (or one subagent's loop) of an agent. */
    static Span turn(Tracing t, TurnContext ctx) {
        return ids(t.start("invoke_agent " + ctx.agent(), SpanKind.INTERNAL), ctx)
                .setAttribute(OPERATION, "invoke_agent").setAttribute(AGENT_NAME, ctx.agent())
                .setAttribute(SUBAGENT, ctx.subagent());
    }

    static void turnEnded(Span span, TurnResult r) {
        span.setAttribute(STOP_REASON, r.reason().wire()).setAttribute(MODEL_CALLS, (long) r.modelCalls());
        if (r.reason() == StopReason.ERROR) {
            span.setStatus(StatusCode.ERROR, "the turn ended with an error");
        }
    }

    /** {@code chat <model>}: one model call with its retries ({@link ModelCaller#call}). */
    static Span modelCall(Tracing t, TurnContext ctx, String model) {
        Span s = ids(t.start(model == null ? "chat" : "chat " + model, SpanKind.CLIENT), ctx)
                .setAttribute(OPERATION, "chat");
        return model == null ? s : s.setAttribute(REQUEST_MODEL, model);
    }

    /** An attempt starts: how many retries came before it, and the model it asks (a fallback may change it). */
    static void attempt(Span span, int attempt, String model) {
        span.setAttribute(RETRY_COUNT, (long) attempt);
        if (model != null) {
            span.setAttribute(REQUEST_MODEL, model);
        }
    }

    /** The reply; {@code requested} {@code null} = the client's default model, named by the one that answered. */
    static void modelReplied(Span span, ModelClient.Reply r, String requested) {
        span.setAttribute(INPUT_TOKENS, r.inputTokens()).setAttribute(OUTPUT_TOKENS, r.outputTokens());
        if (r.model() != null) {
            span.setAttribute(RESPONSE_MODEL, r.model());
            if (requested == null) {
                span.setAttribute(REQUEST_MODEL, r.model()).updateName("chat " + r.model());
            }
        }
        if (r.finishReason() != null) {
            span.setAttribute(FINISH_REASONS, List.of(r.finishReason()));
        }
    }

    /** {@code execute_tool <name>}: one tool's execution, after the gates. */
    static Span toolCall(Tracing t, TurnContext ctx, ToolCall call) {
        Span s = ids(t.start("execute_tool " + call.name(), SpanKind.INTERNAL), ctx)
                .setAttribute(OPERATION, "execute_tool").setAttribute(TOOL_NAME, call.name())
                .setAttribute(TOOL_CALL_ID, call.id() == null ? "" : call.id());
        ctx.mcp().server(call.name()).ifPresent(server -> s.setAttribute(MCP_SERVER, server)
                .setAttribute(TOOL_TYPE, "extension"));
        return s;
    }

    /** Ends a tool span; a model-visible error is marked by its rule, never its text. */
    static void toolEnded(Span span, ToolResult r) {
        if (r != null && r.error()) {
            span.setAttribute(TOOL_ERROR, r.rule() == null ? "error" : r.rule());
            span.setStatus(StatusCode.ERROR, "the tool answered with an error");
        }
        span.end();
    }

    /** The span's work threw: marked failed by the exception's type (its message may hold user data). */
    static void failed(Span span, Throwable e) {
        span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
    }

    private static Span ids(Span s, TurnContext ctx) {
        return s.setAttribute(TEAM, ctx.team()).setAttribute(AGENT, ctx.agent()).setAttribute(TURN, ctx.turnId());
    }
}
