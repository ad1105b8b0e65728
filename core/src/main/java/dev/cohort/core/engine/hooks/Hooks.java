package dev.cohort.core.engine.hooks;

import dev.cohort.core.engine.Message;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.subagent.SubagentRunner.SubagentResult;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The registered hooks, by event and {@link Hook#priority()} (lower first; equal priorities keep their order), and
 * the rules for running them: each hook is isolated (an exception is logged, reported to the {@link HookReporter}
 * and skipped), except a throwing {@link PreToolUseHook}, which blocks the call (fail closed) and is reported too.
 * Immutable and thread-safe.
 */
public final class Hooks {
    private static final Logger LOG = Logger.getLogger(Hooks.class);
    public static final Hooks NONE = new Hooks(List.of());

    private final List<UserPromptSubmitHook> prompt;
    private final List<PreToolUseHook> pre;
    private final List<PostToolUseHook> post;
    private final List<StopHook> stop;
    private final List<SubagentStopHook> subagentStop;
    private final List<PreCompactHook> preCompact;
    private final List<Hook> all;
    private final HookReporter reporter;

    public Hooks(Collection<? extends Hook> hooks) {
        this(hooks, HookReporter.NONE);
    }

    private Hooks(Collection<? extends Hook> hooks, HookReporter reporter) {
        this.reporter = reporter == null ? HookReporter.NONE : reporter;
        this.all = List.copyOf(hooks);
        List<Hook> sorted = new ArrayList<>(hooks);
        sorted.sort(Comparator.comparingInt(Hook::priority));
        prompt = only(sorted, UserPromptSubmitHook.class);
        pre = only(sorted, PreToolUseHook.class);
        post = only(sorted, PostToolUseHook.class);
        stop = only(sorted, StopHook.class);
        subagentStop = only(sorted, SubagentStopHook.class);
        preCompact = only(sorted, PreCompactHook.class);
    }

    /** These hooks plus {@code more} (e.g. a team's command hooks), after these ones at equal priority. */
    public Hooks with(Collection<? extends Hook> more) {
        if (more.isEmpty()) {
            return this;
        }
        List<Hook> both = new ArrayList<>(all);
        both.addAll(more);
        return new Hooks(both.stream().distinct().toList(), reporter);
    }

    /** These hooks, reporting failures to {@code r}. */
    public Hooks withReporter(HookReporter r) {
        return new Hooks(all, r);
    }

    /** Every hook, in registration order. */
    public List<Hook> all() {
        return all;
    }

    private void report(String event, Hook h, RuntimeException e, boolean blocked) {
        try {
            reporter.failed(event, h.name(), String.valueOf(e.getMessage()), blocked);
        } catch (RuntimeException r) {
            LOG.warnf(r, "hook reporter failed for %s", h.name());
        }
    }

    private static <T> List<T> only(List<Hook> hooks, Class<T> type) {
        return hooks.stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** The chained rewrite of a prompt. */
    public String userPromptSubmit(String prompt, ToolContext ctx) {
        String current = prompt;
        for (UserPromptSubmitHook h : this.prompt) {
            try {
                String r = h.onUserPrompt(current, ctx);
                if (r != null) {
                    current = r;
                }
            } catch (RuntimeException e) {
                LOG.warnf(e, "UserPromptSubmit hook %s failed; ignored. team=%s agent=%s", h.name(), ctx.team(), ctx.agent());
                report("UserPromptSubmit", h, e, false);
            }
        }
        return current;
    }

    /** The first block reason, if a hook blocks; a throwing hook blocks (fail closed). */
    public Optional<String> preToolUse(ToolCall call, ToolContext ctx) {
        for (PreToolUseHook h : pre) {
            try {
                Optional<String> r = h.beforeToolUse(call, ctx);
                if (r != null && r.isPresent() && !r.get().isBlank()) {
                    return r;
                }
            } catch (RuntimeException e) {
                LOG.warnf(e, "PreToolUse hook %s failed; the call is blocked. team=%s agent=%s call=%s", h.name(),
                        ctx.team(), ctx.agent(), call.id());
                report("PreToolUse", h, e, true);
                return Optional.of("blocked: the check " + h.name() + " failed (" + e.getMessage()
                        + "); the call was not run, since a PreToolUse hook that fails blocks its call");
            }
        }
        return Optional.empty();
    }

    /** The result after every PostToolUse hook (each may replace it). */
    public ToolResult postToolUse(ToolCall call, ToolResult result, ToolContext ctx) {
        ToolResult current = result;
        for (PostToolUseHook h : post) {
            try {
                Optional<ToolResult> r = h.afterToolUse(call, current, ctx);
                if (r != null && r.isPresent()) {
                    current = r.get();
                }
            } catch (RuntimeException e) {
                LOG.warnf(e, "PostToolUse hook %s failed; ignored. team=%s agent=%s call=%s", h.name(), ctx.team(),
                        ctx.agent(), call.id());
                report("PostToolUse", h, e, false);
            }
        }
        return current;
    }

    /** The first continuation a Stop hook asks for, if any. */
    public Optional<String> stop(List<Message> conversation, ToolContext ctx) {
        for (StopHook h : stop) {
            try {
                Optional<String> r = h.onStop(conversation, ctx);
                if (r != null && r.isPresent() && !r.get().isBlank()) {
                    return r;
                }
            } catch (RuntimeException e) {
                LOG.warnf(e, "Stop hook %s failed; ignored. team=%s agent=%s", h.name(), ctx.team(), ctx.agent());
                report("Stop", h, e, false);
            }
        }
        return Optional.empty();
    }

    public void subagentStop(String description, SubagentResult result, ToolContext ctx) {
        for (SubagentStopHook h : subagentStop) {
            try {
                h.onSubagentStop(description, result, ctx);
            } catch (RuntimeException e) {
                LOG.warnf(e, "SubagentStop hook %s failed; ignored. team=%s agent=%s", h.name(), ctx.team(), ctx.agent());
                report("SubagentStop", h, e, false);
            }
        }
    }

    public void preCompact(List<Message> conversation, ToolContext ctx) {
        for (PreCompactHook h : preCompact) {
            try {
                h.beforeCompact(conversation, ctx);
            } catch (RuntimeException e) {
                LOG.warnf(e, "PreCompact hook %s failed; ignored. team=%s agent=%s", h.name(), ctx.team(), ctx.agent());
                report("PreCompact", h, e, false);
            }
        }
    }
}
