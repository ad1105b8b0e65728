package dev.cohort.core.engine;

import dev.cohort.core.engine.recovery.ModelFailure;
import dev.cohort.core.protocol.payload.ModelRetry;
import dev.cohort.core.retry.RetryPolicy;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.function.Function;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * Calls the model for one loop, with error recovery. Its state is the turn's
 * {@link AgentState.Recovery}, kept in {@link TurnState} (saved, so a resumed turn keeps its fallback and limits).
 *
 * <ul>
 * <li>Transient failures (429, 529/503, other 5xx, connection errors, timeouts) are retried with backoff; the
 * server's {@code Retry-After} is honoured, and there is no sleep after the last attempt.</li>
 * <li>After N consecutive overloads the fallback model is used for the rest of the turn.</li>
 * <li>A context-length error is thrown as {@link ContextTooLong}: the loop compacts reactively, once per turn.</li>
 * <li>A detach (the host hands the turn over) is recognised <em>before</em> a failure is classified, so an
 * interrupted call is never mistaken for a model error.</li>
 * <li>A {@code length} finish is handled by {@link #truncated}: the output limit is raised once, a cut-off answer is
 * continued (bounded) and its fragments joined, cut-off tool calls are regenerated once and then answered with
 * placeholders (bounded).</li>
 * </ul>
 */
final class ModelCaller {
    private static final Logger LOG = Logger.getLogger(ModelCaller.class);

    /** The content of a tool result for a call cut off at the output limit. */
    static final String TRUNCATED_CALL = "[not run: your reply was cut off at the output limit, so this call's "
            + "arguments may be incomplete. Make smaller calls, e.g. write a large file in parts.]";

    /** The host's requests to stop, checked between attempts. */
    interface Signals {
        boolean cancelled();

        boolean detached();
    }

    private final AgentEngine engine;
    private final TurnContext ctx;
    private final TurnState turn;
    private final TurnEvents events;
    private final LiveConversation conv;
    private final Runnable step;
    private final Signals signals;

    ModelCaller(LoopScope scope, Signals signals) {
        this.engine = scope.engine();
        this.ctx = scope.ctx();
        this.turn = scope.turn();
        this.events = scope.events();
        this.conv = scope.conv();
        this.step = scope.step();
        this.signals = signals;
    }

    String model() {
        return turn.model(engine.settings);
    }

    Integer maxOutputTokens() {
        return turn.maxOutputTokens(engine.settings);
    }

    /** One model call with recovery; {@code request} builds the request for the model to use. */
    ModelClient.Reply call(Function<String, ModelClient.Request> request) {
        Span span = EngineSpans.modelCall(engine.tracing, ctx, model());
        try (Scope ignored = span.makeCurrent()) {
            ModelClient.Reply r = callWithRetries(request, span);
            EngineSpans.modelReplied(span, r, model());
            return r;
        } catch (RuntimeException e) {
            EngineSpans.failed(span, e);
            throw e;
        } finally {
            span.end();
        }
    }

    private ModelClient.Reply callWithRetries(Function<String, ModelClient.Request> request,
            Span span) {
        RecoverySettings rs = engine.settings.recovery();
        for (int attempt = 0; ; attempt++) {
            String model = model();
            long t0 = System.nanoTime();
            EngineSpans.attempt(span, attempt, model);
            try {
                ModelClient.Reply r = engine.model.chat(request.apply(model));
                engine.metrics.modelCall(r.model() != null ? r.model() : model == null ? EngineMetrics.DEFAULT_MODEL : model,
                        EngineMetrics.ModelOutcome.OK, since(t0));
                if (turn.recovery.consecutiveOverloads() != 0) {
                    turn.recovery = turn.recovery.withConsecutiveOverloads(0);
                }
                return r;
            } catch (RuntimeException e) {
                if (signals.detached()) {
                    Thread.interrupted(); // the host may interrupt the call to cut it short; the save that follows must not see it
                    throw new TurnEnd(StopReason.DETACHED, "The turn was handed over during a model call.");
                }
                ModelFailure f = ModelFailure.classify(e);
                engine.metrics.modelCall(model == null ? EngineMetrics.DEFAULT_MODEL : model,
                        EngineMetrics.ModelOutcome.of(f.kind()), since(t0));
                LOG.warnf("model call failed (%s, attempt %d/%d): %s team=%s agent=%s turn=%s", f.kind(),
                        attempt + 1, rs.maxAttempts(), f.describe(), ctx.team(), ctx.agent(), ctx.turnId());
                if (f.kind() == ModelFailure.Kind.CONTEXT_LENGTH) {
                    throw new ContextTooLong(f);
                }
                if (!f.kind().retryable()) {
                    throw new TurnEnd(StopReason.ERROR, fatalMessage(f));
                }
                int overloads = f.kind() == ModelFailure.Kind.OVERLOADED ? turn.recovery.consecutiveOverloads() + 1 : 0;
                String next = turn.recovery.model();
                if (overloads >= rs.overloadsBeforeFallback() && rs.fallbackModel() != null
                        && !rs.fallbackModel().equals(model)) {
                    next = rs.fallbackModel();
                    overloads = 0;
                    events.retry(new ModelRetry.Fallback(model == null ? "primary" : model, next, f.status(), f.code(),
                            ctx.turnId(), events.subagentFlag()));
                }
                turn.recovery = turn.recovery.withModel(next).withConsecutiveOverloads(overloads);
                if (attempt + 1 >= rs.maxAttempts()) {
                    throw new TurnEnd(StopReason.ERROR, "The model is unavailable: " + rs.maxAttempts()
                            + " attempts failed; the last one with " + f.describe());
                }
                Duration delay = RetryPolicy.delay(attempt, f.retryAfter(), rs.baseDelay(), rs.maxDelay(),
                        rs.maxRetryAfter(), rs.jitterRatio(), engine.random.getAsDouble());
                events.retry(new ModelRetry.Retry(attempt + 1, rs.maxAttempts(), f.kind().name().toLowerCase(),
                        f.status(), f.code(), delay.toMillis(), f.retryAfter() != null, model(), ctx.turnId(),
                        events.subagentFlag()));
                try {
                    engine.sleeper.sleep(delay);
                } catch (InterruptedException ie) {
                    if (signals.detached()) {
                        throw new TurnEnd(StopReason.DETACHED, "The turn was handed over while waiting to retry.");
                    }
                    Thread.currentThread().interrupt();
                    throw new TurnEnd(StopReason.CANCELLED, "The turn was cancelled while waiting to retry.");
                }
                if (signals.detached()) {
                    throw new TurnEnd(StopReason.DETACHED, "The turn was handed over while waiting to retry.");
                }
                if (signals.cancelled()) {
                    throw new TurnEnd(StopReason.CANCELLED, "The turn was cancelled.");
                }
            }
        }
    }

    private static Duration since(long t0) {
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    private static String fatalMessage(ModelFailure f) {
        return switch (f.kind()) {
            case AUTH -> "The model provider refused the credentials (" + f.describe() + "). Check the API key "
                    + "(cohort.llm.api-key / OPENAI_API_KEY, or cohort.llm.anthropic.api-key / ANTHROPIC_API_KEY for"
                    + " Anthropic); not retried.";
            case QUOTA -> "The model provider's quota is exhausted (" + f.describe() + "). Add credit or use "
                    + "another key; not retried.";
            default -> "The model call failed (" + f.describe() + "); not retried.";
        };
    }

    /**
     * A {@code length} finish: the output limit is raised once (capped by the model's maximum);
     * a cut-off text is kept and continued (at most N prompts; the fragments are joined into one answer); cut-off
     * tool calls are regenerated once with the raised limit, then answered with placeholders, counted and bounded.
     * Returns normally when the loop goes on; throws {@link TurnEnd} when the turn must end.
     */
    void truncated(ModelClient.Reply reply, Usage u) {
        RecoverySettings rs = engine.settings.recovery();
        boolean escalated = false;
        Integer cur = maxOutputTokens();
        int cap = Math.min(rs.escalatedMaxOutputTokens(),
                engine.settings.compaction().limitsFor(model()).maxOutputTokens());
        if (turn.recovery.maxOutputTokens() == null && (cur == null || cap > cur)) {
            turn.recovery = turn.recovery.withMaxOutputTokens(cap);
            escalated = true;
            events.retry(new ModelRetry.EscalateMaxTokens(cur == null ? 0 : cur, cap, ctx.turnId(),
                    events.subagentFlag()));
        }
        if (!reply.toolCalls().isEmpty()) {
            if (escalated) {
                step.run(); // regenerate with the raised limit: the cut-off calls are dropped, never run
                return;
            }
            int n = turn.recovery.truncatedToolRounds() + 1;
            turn.recovery = turn.recovery.withTruncatedToolRounds(n);
            Message a = Message.assistant(reply.text(), withIds(reply.toolCalls()));
            conv.add(a);
            for (ModelToolCall c : a.toolCalls()) {
                conv.add(Message.tool(c.id(), c.name(), TRUNCATED_CALL, true));
            }
            step.run();
            events.assistant(a, reply, u, model());
            events.retry(new ModelRetry.TruncatedToolCalls(n, rs.maxTruncatedToolRounds(), ctx.turnId(),
                    events.subagentFlag()));
            if (n > rs.maxTruncatedToolRounds()) {
                throw new TurnEnd(StopReason.ERROR, "Stopped: the model's tool calls were cut off at the output limit "
                        + n + " times in this turn.");
            }
            return;
        }
        if (turn.recovery.continuations() >= rs.maxContinuations()) {
            ModelClient.Reply joined = joinContinuations(reply);
            Message a = Message.assistant((joined.text() == null ? "" : joined.text())
                    + "\n\n[the answer was cut off at the output limit after " + rs.maxContinuations()
                    + " continuations]", List.of());
            conv.add(a);
            step.run();
            events.assistant(a, joined, u, model());
            events.retry(new ModelRetry.ContinuationLimit(rs.maxContinuations(), ctx.turnId(), events.subagentFlag()));
            return; // a final answer: the loop completes the turn
        }
        int n = turn.recovery.continuations() + 1;
        turn.recovery = turn.recovery.withContinuations(n);
        conv.add(Message.assistant(reply.text() == null ? "" : reply.text(), List.of()));
        conv.add(Message.user(RecoverySettings.CONTINUATION_PROMPT));
        step.run();
        Integer max = maxOutputTokens();
        events.retry(new ModelRetry.Continue(n, rs.maxContinuations(), max == null ? 0 : max, ctx.turnId(),
                events.subagentFlag()));
    }

    /** Replaces a trailing chain of (fragment, continuation prompt) pairs by one answer: fragments + reply. */
    ModelClient.Reply joinContinuations(ModelClient.Reply reply) {
        List<String> frags = new ArrayList<>();
        List<Message> m = conv.messages;
        while (m.size() >= 2) {
            Message last = m.get(m.size() - 1);
            Message prev = m.get(m.size() - 2);
            if (last.role() != Message.Role.USER || !RecoverySettings.CONTINUATION_PROMPT.equals(last.content())
                    || prev.role() != Message.Role.ASSISTANT || prev.hasToolCalls()) {
                break;
            }
            frags.add(0, prev.content() == null ? "" : prev.content());
            m.remove(m.size() - 1);
            m.remove(m.size() - 1);
        }
        if (frags.isEmpty()) {
            return reply;
        }
        conv.stats = null;
        StringBuilder joined = new StringBuilder();
        frags.forEach(joined::append);
        joined.append(reply.text() == null ? "" : reply.text());
        return new ModelClient.Reply(joined.toString(), reply.toolCalls(), reply.finishReason(),
                reply.inputTokens(), reply.outputTokens(), reply.model(), reply.cachedTokens(),
                reply.cacheWriteTokens());
    }

    /** Gives calls without an id one (some providers omit it), so every result can be paired. */
    List<ModelToolCall> withIds(List<ModelToolCall> in) {
        List<ModelToolCall> out = new ArrayList<>(in.size());
        for (int i = 0; i < in.size(); i++) {
            ModelToolCall c = in.get(i);
            out.add(c.id() == null || c.id().isBlank()
                    ? new ModelToolCall("call_" + ctx.turnId().substring(0, 8) + "_" + turn.modelCalls + "_" + i,
                            c.name(), c.arguments())
                    : c);
        }
        return out;
    }

    /** A context-length error: reactive compaction, once per turn. */
    static final class ContextTooLong extends RuntimeException {
        final transient ModelFailure failure;

        ContextTooLong(ModelFailure f) {
            super(f.describe(), null, false, false);
            this.failure = f;
        }
    }

    /** A model failure (or a host request) that ends or suspends the turn. */
    static final class TurnEnd extends RuntimeException {
        final StopReason reason;

        TurnEnd(StopReason reason, String message) {
            super(message, null, false, false);
            this.reason = reason;
        }
    }
}
