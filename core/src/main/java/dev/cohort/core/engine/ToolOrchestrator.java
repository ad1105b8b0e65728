package dev.cohort.core.engine;

import dev.cohort.core.engine.hooks.Hooks;
import dev.cohort.core.engine.permission.PermissionDecision;
import dev.cohort.core.engine.permission.PermissionGate;
import dev.cohort.core.engine.permission.PermissionMode;
import dev.cohort.core.engine.permission.PermissionPolicy;
import dev.cohort.core.shell.CommandRules;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolArguments;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolEffect;
import dev.cohort.core.tools.ToolFailure;
import dev.cohort.core.tools.ToolInfrastructureException;
import dev.cohort.core.tools.ToolResult;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * Runs the tool calls of the last assistant message that have no result yet, in order, each through the same gates
 * (codex's {@code orchestrator.rs}); every call gets exactly one result, saved before the next call starts:
 *
 * <ol>
 * <li><b>unknown</b> tool → a model-visible error listing the offered tools;</li>
 * <li><b>allowlist</b> of the agent (enforced here, not only in the specs sent);</li>
 * <li><b>schema</b>: the arguments are validated against the tool's spec;</li>
 * <li><b>permission</b>: {@link PermissionGate} on what the tool says is at stake ({@link Tool#permissionSubject}),
 * the team's mode and rules, the host-chosen cwd of this call;</li>
 * <li><b>approval</b> for an ask: {@link ApprovalGateway#check} answers at once; approved runs the call, denied is
 * the result, pending <em>parks</em> the turn (saved, the call unanswered, no thread held) — a resumed turn comes
 * back here and asks again, so an approved call runs once; an ephemeral (subagent) loop cannot wait: denied;</li>
 * <li><b>PreToolUse</b> hooks (any may refuse; a throwing one refuses: fail closed);</li>
 * <li><b>execute</b>: a {@link ToolFailure} is a model-visible result, a {@link ToolInfrastructureException} ends the
 * turn, any other exception is a bug shown to the model as an internal error;</li>
 * <li><b>PostToolUse</b> hooks may rewrite the result's text;</li>
 * <li>the result is recorded, then the tool's own {@link ToolEffect effects} (of a successful call) are applied
 * (todos changed, compaction requested, skill loaded, task claimed) and handed to the host.</li>
 * </ol>
 *
 * <p>Between calls: a cancel skips the rest (each skipped call gets a result saying so) and ends the turn; a detach
 * stops with the rest unanswered, for the next owner to run; the stuck guard watches the same call or error
 * repeating (a notice, then the end).
 */
final class ToolOrchestrator {
    private static final Logger LOG = Logger.getLogger(ToolOrchestrator.class);

    /** How the batch stopped the loop. */
    record Stop(StopReason reason, String text) {
    }

    /** The answer of the gates and the tool for one call: a result, or a park on an approval. */
    private record Outcome(ToolResult result, String parkOn, List<ToolEffect> effects) {
        static Outcome of(ToolResult r) {
            return new Outcome(r, null, List.of());
        }
    }

    private final AgentEngine engine;
    private final TurnContext ctx;
    private final TurnState turn;
    private final LiveConversation conv;
    private final TurnEvents events;
    private final Hooks hooks;
    private final PermissionPolicy policy;
    private final Supplier<PermissionMode> mode;
    private final ModelCaller.Signals signals;
    private final Runnable step;
    private final Consumer<ToolEffect> effects;
    private final Runnable afterCall;

    ToolOrchestrator(LoopScope scope, PermissionPolicy policy, Supplier<PermissionMode> mode,
            ModelCaller.Signals signals, Consumer<ToolEffect> effects, Runnable afterCall) {
        this.engine = scope.engine();
        this.ctx = scope.ctx();
        this.turn = scope.turn();
        this.conv = scope.conv();
        this.events = scope.events();
        this.hooks = scope.hooks();
        this.step = scope.step();
        this.policy = policy;
        this.mode = mode;
        this.signals = signals;
        this.effects = effects;
        this.afterCall = afterCall;
    }

    /** Runs the unanswered calls; returns how the loop must stop, or {@code null} to go on. */
    Stop runPending() {
        List<ModelToolCall> pending = Conversation.pendingCalls(conv.messages);
        String notice = null;
        for (int i = 0; i < pending.size(); i++) {
            ModelToolCall c = pending.get(i);
            if (signals.detached()) {
                return new Stop(StopReason.DETACHED, "The turn was handed over.");
            }
            if (signals.cancelled()) {
                skipRest(pending, i, "not run: the turn was cancelled");
                return new Stop(StopReason.CANCELLED, "The turn was cancelled.");
            }
            long t0 = System.nanoTime();
            events.toolStarted(c);
            Outcome out;
            try (LogContext.Scope callScope = LogContext.put(LogContext.CALL, c.id())) {
                out = dispatch(c);
            } catch (ToolInfrastructureException e) {
                LOG.warnf("tool infrastructure failed: %s team=%s agent=%s turn=%s call=%s", e.getMessage(),
                        ctx.team(), ctx.agent(), ctx.turnId(), c.id());
                record(c, ToolResult.error("infrastructure", e.getMessage()), t0);
                skipRest(pending, i + 1, "not run: the turn ended after an infrastructure failure");
                events.error(e.getMessage());
                return new Stop(StopReason.ERROR, "A tool could not run: " + e.getMessage());
            } catch (ModelCaller.TurnEnd e) {
                return new Stop(e.reason, e.getMessage()); // a subagent stopped because the turn is handed over
            }
            if (out.parkOn() != null && signals.cancelled()) {
                skipRest(pending, i, "not run: the turn was cancelled"); // a cancel that came while asking wins
                return new Stop(StopReason.CANCELLED, "The turn was cancelled.");
            }
            if (out.parkOn() != null) {
                turn.waiting = new AgentState.Wait(AgentState.Wait.APPROVAL, out.parkOn(), c.id());
                step.run();
                return new Stop(StopReason.PARKED, "Waiting for approval " + out.parkOn() + " of " + c.name() + ".");
            }
            ToolResult result = out.result();
            record(c, result, t0);
            out.effects().forEach(effects);
            afterCall.run();
            turn.stuck = StuckGuard.observe(turn.stuck, c.name() + " " + canonical(c.arguments()),
                    result.error() ? result.content() : null, result.content());
            StuckGuard.Verdict v = StuckGuard.verdict(turn.stuck, engine.settings.stuckNoticeAt(),
                    engine.settings.stuckEndAt());
            step.run();
            if (v == StuckGuard.Verdict.END) {
                skipRest(pending, i + 1, "not run: the turn ended because the agent was repeating itself");
                return new Stop(StopReason.STUCK, StuckGuard.endText(turn.stuck));
            }
            if (v == StuckGuard.Verdict.NOTICE) {
                notice = StuckGuard.notice(turn.stuck);
            }
        }
        if (notice != null) {
            conv.add(Message.user(notice));
            step.run();
        }
        return null;
    }

    /** The gates and the tool, in the order of the class comment: one result, a park, or an infra exception. */
    private Outcome dispatch(ModelToolCall c) {
        Optional<Tool> found = ctx.tool(engine.tools, c.name());
        if (found.isEmpty()) {
            return Outcome.of(ToolResult.error("unknown-tool", "unknown tool '" + c.name() + "'; available tools: "
                    + String.join(", ", ctx.offeredNow())));
        }
        Tool tool = found.get();
        if (!ctx.allows(tool.name())) {
            return Outcome.of(ToolResult.error("allowlist", "tool '" + tool.name() + "' is not available to this agent ("
                    + ctx.role().name() + "); available tools: " + String.join(", ", ctx.offeredNow())));
        }
        ToolArguments.Parsed parsed = ToolArguments.parse(c.arguments(), tool.spec().parameters());
        if (!parsed.ok()) {
            return Outcome.of(ToolResult.error("schema", "invalid arguments for " + tool.name() + ": "
                    + String.join("; ", parsed.problems())));
        }
        ToolCall call = new ToolCall(c.id(), tool.name(), parsed.args());
        PermissionDecision pd = PermissionGate.decide(mode.get(), tool.name(), tool.isMutating(),
                tool.permissionSubject(call.args()), policy, CommandRules.Workspace.relative(ctx.cwd()),
                ctx.unattended());
        if (pd.kind() == PermissionDecision.Kind.DENY) {
            return Outcome.of(ToolResult.error("permission:" + pd.rule(), "permission denied by rule '" + pd.rule()
                    + "': " + pd.reason()));
        }
        if (pd.kind() == PermissionDecision.Kind.ASK) {
            if (!ctx.policy().parksOnApproval()) {
                return Outcome.of(ToolResult.error("permission:" + pd.rule(), "permission denied: " + pd.reason()
                        + " needs approval, and a subagent cannot wait for one; report it to the agent that started "
                        + "you, which can run it"));
            }
            ApprovalGateway.Decision ad = engine.approvals.check(new ApprovalGateway.Request(ctx.team(), ctx.agent(),
                    ctx.turnId(), c.id(), tool.name(), call.args(), pd.reason(), engine.settings.approvalTimeout()));
            if (ad != null && ad.status() == ApprovalGateway.Decision.Status.PENDING) {
                return new Outcome(null, ad.approvalId(), List.of());
            }
            turn.waiting = null;
            if (ad == null || !ad.approved()) {
                String why = ad == null || ad.reason() == null ? "no approval" : ad.reason();
                return Outcome.of(ToolResult.error("permission:denied", "permission denied: " + pd.reason()
                        + " needed approval and it was refused (" + why + ")"));
            }
        }
        Optional<String> blocked = hooks.preToolUse(call, ctx);
        if (blocked.isPresent()) {
            return Outcome.of(ToolResult.error("hook", blocked.get()));
        }
        ToolResult result = null;
        Span span = EngineSpans.toolCall(engine.tracing, ctx, call);
        try (Scope ignored = span.makeCurrent()) {
            result = tool.execute(call, ctx);
            if (result == null) {
                result = ToolResult.ok(null);
            }
        } catch (ToolFailure f) {
            result = f.toResult();
        } catch (ToolInfrastructureException | ModelCaller.TurnEnd e) {
            EngineSpans.failed(span, e);
            throw e; // ends the turn / a subagent's loop was handed over with the turn
        } catch (RuntimeException e) {
            LOG.errorf(e, "tool %s failed unexpectedly team=%s agent=%s call=%s", tool.name(), ctx.team(),
                    ctx.agent(), c.id());
            result = ToolResult.error("internal", "the tool " + tool.name() + " failed internally: " + e);
        } finally {
            EngineSpans.toolEnded(span, result);
        }
        // the tool's own effects: a PostToolUse hook may rewrite the text, not undo what happened
        List<ToolEffect> done = result.error() ? List.of() : result.effects();
        return new Outcome(hooks.postToolUse(call, result, ctx), null, done);
    }

    private void skipRest(List<ModelToolCall> pending, int from, String why) {
        for (int j = from; j < pending.size(); j++) {
            ModelToolCall c = pending.get(j);
            conv.add(Message.tool(c.id(), c.name(), why, true));
        }
        step.run();
    }

    private void record(ModelToolCall c, ToolResult result, long t0) {
        conv.add(Message.tool(c.id(), c.name(), result.content(), result.error()));
        long took = System.nanoTime() - t0;
        events.toolFinished(c, result, took / 1_000_000);
        engine.metrics.toolCall(engine.tools.find(c.name()).isPresent() ? c.name()
                : ctx.mcp().find(c.name()).isPresent() ? EngineMetrics.MCP_TOOL : EngineMetrics.UNKNOWN_TOOL,
                outcome(result), Duration.ofNanos(took));
    }

    /** The metrics' outcome of a recorded result (the rules of {@link #dispatch} and of the infrastructure catch). */
    static EngineMetrics.ToolOutcome outcome(ToolResult r) {
        if (!r.error()) {
            return EngineMetrics.ToolOutcome.OK;
        }
        String rule = r.rule() == null ? "" : r.rule();
        if (rule.equals("infrastructure")) {
            return EngineMetrics.ToolOutcome.INFRASTRUCTURE;
        }
        return rule.startsWith("permission:") ? EngineMetrics.ToolOutcome.DENIED : EngineMetrics.ToolOutcome.ERROR;
    }

    private static String canonical(String raw) {
        ToolArguments.Parsed p = ToolArguments.parse(raw, null);
        return p.ok() ? p.args().toString() : String.valueOf(raw);
    }
}
