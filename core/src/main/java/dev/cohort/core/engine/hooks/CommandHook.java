package dev.cohort.core.engine.hooks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.engine.Message;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * A team-configured shell hook, in Claude Code's format ({@link HookSettings}). The command runs <b>through the tool
 * runner</b> (never on the service host), in the agent's workspace and sandbox like any {@code bash} call, with the
 * hook event as JSON on <b>stdin</b> (the runner's internal {@code stdin} argument: a large PostToolUse payload never
 * meets the argument-length limit) and its {@link #timeoutSeconds()} enforced by the runner.
 *
 * <p>Exit codes, as in Claude Code: {@code 0} = fine (for UserPromptSubmit, stdout is appended to the prompt as
 * context); {@code 2} = act, with <b>stderr</b> as the reason: PreToolUse blocks the call (the model sees the reason),
 * PostToolUse appends the reason to the result the model sees, Stop makes the turn continue with the reason as the
 * next user message (UserPromptSubmit: reported, the prompt goes on); any other exit code, a timeout or a failure of
 * the runner is a {@link HookFailedException}, which {@link Hooks} reports as an {@code error} event and, for
 * PreToolUse only, turns into a refusal of the call (fail closed).
 *
 * @param event          which event it hangs on
 * @param matcher        for tool events, a regex the whole tool name must match ({@code null} = every tool)
 * @param command        the shell command
 * @param timeoutSeconds how long the runner lets it run (then its process group is killed)
 * @param origin         where it was configured, for messages: {@code team settings} or {@code .cohort/settings.json}
 */
public record CommandHook(Event event, Pattern matcher, String command, int timeoutSeconds, String origin) {
    /** The exit code that means "block / act on my stderr" (Claude Code's convention). */
    public static final int BLOCK_EXIT = 2;
    /** Command hooks run after built-in hooks of a lower or equal priority. */
    public static final int PRIORITY = 1000;
    /** Characters of stderr quoted in a failure report. */
    private static final int QUOTE = 500;

    /** The events a command hook can hang on, by their Claude Code names. */
    public enum Event {
        USER_PROMPT_SUBMIT("UserPromptSubmit"), PRE_TOOL_USE("PreToolUse"), POST_TOOL_USE("PostToolUse"), STOP("Stop");

        private final String wire;

        Event(String wire) {
            this.wire = wire;
        }

        /** The name in settings files and in {@code hook_event_name}. */
        public String wire() {
            return wire;
        }

        /** {@code true} for the events that have a tool name to match. */
        public boolean isToolEvent() {
            return this == PRE_TOOL_USE || this == POST_TOOL_USE;
        }

        /** The event of a settings name, if any. */
        public static Optional<Event> of(String wire) {
            for (Event e : values()) {
                if (e.wire.equals(wire)) {
                    return Optional.of(e);
                }
            }
            return Optional.empty();
        }
    }

    public CommandHook {
        if (event == null || command == null || command.isBlank()) {
            throw new IllegalArgumentException("a command hook needs an event and a command");
        }
        if (timeoutSeconds < 1 || timeoutSeconds > HookSettings.MAX_TIMEOUT_SECONDS) {
            throw new IllegalArgumentException("timeout must be between 1 and " + HookSettings.MAX_TIMEOUT_SECONDS + " s");
        }
        origin = origin == null ? "team settings" : origin;
    }

    /** A hook with the default timeout, configured by the team. */
    public static CommandHook of(Event event, String toolRegex, String command) {
        return new CommandHook(event, toolRegex == null ? null : Pattern.compile(toolRegex), command,
                HookSettings.DEFAULT_TIMEOUT_SECONDS, null);
    }

    /** How messages and events name this hook. */
    public String describe() {
        return event.wire() + " hook `" + command + "` (" + origin + ")";
    }

    /** This configuration as a hook the engine can run. */
    public Hook toHook() {
        CommandHook self = this;
        return switch (event) {
            case PRE_TOOL_USE -> new PreToolUseHook() {
                @Override
                public Optional<String> beforeToolUse(ToolCall call, ToolContext ctx) {
                    if (!matches(call)) {
                        return Optional.empty();
                    }
                    Run r = run(ctx, toolEvent(call, null, ctx), call.id());
                    return r.exit == BLOCK_EXIT ? Optional.of("blocked by " + describe() + ": " + r.reason()) : Optional.empty();
                }

                @Override
                public int priority() {
                    return PRIORITY;
                }

                @Override
                public String name() {
                    return self.describe();
                }
            };
            case POST_TOOL_USE -> new PostToolUseHook() {
                @Override
                public Optional<ToolResult> afterToolUse(ToolCall call, ToolResult result, ToolContext ctx) {
                    if (!matches(call)) {
                        return Optional.empty();
                    }
                    Run r = run(ctx, toolEvent(call, result, ctx), call.id());
                    return r.exit == BLOCK_EXIT
                            ? Optional.of(new ToolResult(result.content() + "\n[hook] " + r.reason(), result.error(), result.rule()))
                            : Optional.empty();
                }

                @Override
                public int priority() {
                    return PRIORITY;
                }

                @Override
                public String name() {
                    return self.describe();
                }
            };
            case STOP -> new StopHook() {
                @Override
                public Optional<String> onStop(List<Message> conversation, ToolContext ctx) {
                    Run r = run(ctx, stopEvent(conversation, ctx), ctx.turnId());
                    return r.exit == BLOCK_EXIT ? Optional.of(r.reason()) : Optional.empty();
                }

                @Override
                public int priority() {
                    return PRIORITY;
                }

                @Override
                public String name() {
                    return self.describe();
                }
            };
            case USER_PROMPT_SUBMIT -> new UserPromptSubmitHook() {
                @Override
                public String onUserPrompt(String prompt, ToolContext ctx) {
                    ObjectNode e = base(ctx);
                    e.put("prompt", prompt);
                    Run r = run(ctx, e, ctx.turnId());
                    if (r.exit == BLOCK_EXIT) {
                        // Claude Code would drop the prompt; here a prompt is a queued request, so it goes on
                        throw new HookFailedException("exit code 2 (blocking a prompt is not supported; the prompt was kept): "
                                + r.reason());
                    }
                    return r.stdout.isBlank() ? null : prompt + "\n\n" + r.stdout.strip();
                }

                @Override
                public int priority() {
                    return PRIORITY;
                }

                @Override
                public String name() {
                    return self.describe();
                }
            };
        };
    }

    private boolean matches(ToolCall call) {
        return matcher == null || matcher.matcher(call.name()).matches();
    }

    /** A run that ended with exit code 0 or 2. */
    private record Run(int exit, String stdout, String stderr) {
        String reason() {
            String s = stderr.strip();
            return s.isEmpty() ? "(the hook gave no reason on stderr)" : s;
        }
    }

    /**
     * Runs the command with the event on stdin.
     *
     * @throws HookFailedException on a timeout, a refusal or failure of the runner, or an exit code other than 0 and 2
     */
    private Run run(ToolContext ctx, ObjectNode eventJson, String key) {
        ObjectNode args = Json.MAPPER.createObjectNode().put("command", command).put("stdin", Json.write(eventJson))
                .put("timeout_ms", timeoutSeconds * 1000L);
        // a new id for every run: the runner answers a repeated id from its record, and each hook run is a new run
        // (a counter would repeat after a restart)
        String callId = "hook-" + event.name().toLowerCase() + "-" + key + "-" + UUID.randomUUID();
        ToolOutcome out;
        try {
            out = ctx.workspace().execute("bash", callId, args,
                    new WorkspaceToolExecutor.Target(ctx.team(), ctx.agent(), ctx.cwd()));
        } catch (RuntimeException e) {
            throw new HookFailedException("the tool runner could not run it: " + e.getMessage(), e);
        }
        String stdout = out.output() == null ? "" : out.output();
        String stderr = out.stderr() == null ? "" : out.stderr();
        if (out.exitCode() == null) {
            String why = out.error() == null ? "it ended without an exit code" : out.error();
            if (why.contains("timed out")) {
                why = "timed out after " + timeoutSeconds + " s (its process group was killed)";
            }
            throw new HookFailedException(why);
        }
        int exit = out.exitCode();
        if (exit != 0 && exit != BLOCK_EXIT) {
            String said = stderr.isBlank() ? stdout.strip() : stderr.strip();
            throw new HookFailedException("exit code " + exit + (said.isEmpty() ? "" : ": " + quote(said)));
        }
        return new Run(exit, stdout, stderr);
    }

    private static String quote(String s) {
        return s.length() <= QUOTE ? s : s.substring(0, QUOTE) + " […]";
    }

    private ObjectNode base(ToolContext ctx) {
        ObjectNode e = Json.MAPPER.createObjectNode();
        e.put("hook_event_name", event.wire()).put("session_id", ctx.agentId()).put("team", ctx.team())
                .put("agent", ctx.agent()).put("turn_id", ctx.turnId());
        return e;
    }

    private ObjectNode toolEvent(ToolCall call, ToolResult result, ToolContext ctx) {
        ObjectNode e = base(ctx);
        e.put("tool_name", call.name()).put("tool_call_id", call.id());
        e.set("tool_input", call.args());
        if (result != null) {
            e.put("tool_response", result.content()).put("is_error", result.error());
        }
        return e;
    }

    private ObjectNode stopEvent(List<Message> conversation, ToolContext ctx) {
        ObjectNode e = base(ctx);
        Message last = conversation.isEmpty() ? null : conversation.get(conversation.size() - 1);
        e.put("last_assistant_message", last == null || last.content() == null ? "" : last.content());
        return e;
    }
}
