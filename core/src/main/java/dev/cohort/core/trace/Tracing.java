package dev.cohort.core.trace;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The engine's tracing: the OpenTelemetry API only, so core stays framework-free. A host that traces hands
 * the engine its SDK ({@code AgentEngine.Builder#tracing}); the default {@link #NOOP} creates no spans and keeps no
 * state, so an engine that does not trace pays nothing but a few no-op calls.
 *
 * <p>What the engine records: a span per turn ({@code invoke_agent}), per model call ({@code chat}, with the
 * {@code gen_ai.*} attributes and {@code cohort.retry_count}) and per tool call ({@code execute_tool}), each the child
 * of the span current on the thread. The turn's parent is the prompt's or message's ingress: a host's consumer records
 * it with {@link #ingress} when it stores an input, and the agent's host thread takes it with {@link #takeIngress}
 * when the turn for that input starts (the actor that runs the turn is on another thread, and the input waits in the
 * database in between). That hand-over is in memory: a turn resumed after a restart starts a new trace.
 */
public final class Tracing {

    /** The scope name of the engine's spans. */
    public static final String SCOPE = "dev.cohort.engine";

    /** No spans, no propagation, no state. */
    public static final Tracing NOOP = new Tracing(OpenTelemetry.noop());

    /** The W3C {@code traceparent} header (and {@code TRACEPARENT} environment variable of a process). */
    public static final String TRACEPARENT = "traceparent";

    private final Tracer tracer;
    private final TextMapPropagator propagator;
    private final ConcurrentMap<String, Context> ingress = new ConcurrentHashMap<>();

    public Tracing(OpenTelemetry otel) {
        Objects.requireNonNull(otel, "otel");
        this.tracer = otel.getTracer(SCOPE);
        // a host without configured propagators still propagates W3C trace context (the contract of every hop)
        TextMapPropagator p = otel.getPropagators().getTextMapPropagator();
        this.propagator = p.fields().isEmpty() && otel != OpenTelemetry.noop() ? W3CTraceContextPropagator.getInstance() : p;
    }

    public Tracer tracer() {
        return tracer;
    }

    /** A span of {@code kind} under the current context (not started as current: the caller makes it current). */
    public Span start(String name, SpanKind kind) {
        return tracer.spanBuilder(name).setSpanKind(kind).startSpan();
    }

    /** A span of {@code kind} under {@code parent}. */
    public Span start(String name, SpanKind kind, Context parent) {
        return tracer.spanBuilder(name).setSpanKind(kind).setParent(parent).startSpan();
    }

    /**
     * Records the trace context an input of agent {@code team/agent} arrived in (the current one when {@code ctx} has
     * no valid span of its own is not kept): its next turn continues it. A later input replaces an earlier one that no
     * turn took yet.
     */
    public void ingress(String team, String agent, Context ctx) {
        if (ctx != null && Span.fromContext(ctx).getSpanContext().isValid()) {
            ingress.put(key(team, agent), ctx);
        }
    }

    /** The context recorded by {@link #ingress} for the agent, removed; the current context when there is none. */
    public Context takeIngress(String team, String agent) {
        Context c = ingress.remove(key(team, agent));
        return c == null ? Context.current() : c;
    }

    /** Writes the current context into {@code carrier} (no-op without a valid span). */
    public <C> void inject(C carrier, TextMapSetter<C> setter) {
        inject(Context.current(), carrier, setter);
    }

    public <C> void inject(Context ctx, C carrier, TextMapSetter<C> setter) {
        if (Span.fromContext(ctx).getSpanContext().isValid()) {
            propagator.inject(ctx, carrier, setter);
        }
    }

    /** The context carried by {@code carrier} on top of the current one (the current one when it carries none). */
    public <C> Context extract(C carrier, TextMapGetter<C> getter) {
        return propagator.extract(Context.current(), carrier, getter);
    }

    /**
     * The W3C {@code traceparent} of the current span ({@code 00-<trace>-<span>-<flags>}), or {@code null} when no
     * span is recording a valid context (tracing off).
     */
    public static String traceparent() {
        SpanContext sc = Span.current().getSpanContext();
        if (!sc.isValid()) {
            return null;
        }
        return "00-" + sc.getTraceId() + "-" + sc.getSpanId() + "-" + sc.getTraceFlags().asHex();
    }

    private static String key(String team, String agent) {
        return team + "/" + agent;
    }
}
