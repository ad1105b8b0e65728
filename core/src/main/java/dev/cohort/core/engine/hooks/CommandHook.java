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
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/**
 * A team-configured shell hook, as Claude Code users know them: the command runs <b>through the tool runner</b>
 * (never on the service host) with the event as JSON on stdin. Exit code 2 blocks (PreToolUse), forces a
 * continuation (Stop) or is appended to the result (PostToolUse), with the command's output as the reason; any
 * other non-zero exit is logged and ignored. For UserPromptSubmit, output on exit 0 is appended to the prompt as
 * context.
 *
 * @param event   which event it hangs on
 * @param matcher for tool events, a regex the tool name must match ({@code null} = every tool)
 * @param command the shell command
 */
public record CommandHook(Event event, Pattern matcher, String command) {
    private static final Logger LOG = Logger.getLogger(CommandHook.class);
    private static final AtomicLong SEQ = new AtomicLong();
    /** The exit code that means "block / act on my output" (Claude Code's convention). */
    public static final int BLOCK_EXIT = 2;

    public enum Event {
        USER_PROMPT_SUBMIT, PRE_TOOL_USE, POST_TOOL_USE, STOP
    }

    public static CommandHook of(Event event, String toolRegex, String command) {
        return new CommandHook(event, toolRegex == null ? null : Pattern.compile(toolRegex), command);
    }

    /** This configuration as a hook the engine can run. */
    public Hook toHook() {
        return switch (event) {
            case PRE_TOOL_USE -> (PreToolUseHook) (call, ctx) -> matches(call) ? run(ctx, toolEvent("PreToolUse", call, null), call.id())
                    .filter(r -> r.exit == BLOCK_EXIT).map(r -> "blocked by hook '" + command + "': " + r.text) : Optional.empty();
            case POST_TOOL_USE -> (PostToolUseHook) (call, result, ctx) -> matches(call)
                    ? run(ctx, toolEvent("PostToolUse", call, result), call.id()).filter(r -> r.exit == BLOCK_EXIT)
                            .map(r -> new ToolResult(result.content() + "\n[hook] " + r.text, result.error(), result.rule()))
                    : Optional.empty();
            case STOP -> (StopHook) (conversation, ctx) -> run(ctx, stopEvent(conversation, ctx), ctx.turnId())
                    .filter(r -> r.exit == BLOCK_EXIT).map(r -> r.text);
            case USER_PROMPT_SUBMIT -> (UserPromptSubmitHook) (prompt, ctx) -> {
                ObjectNode e = base("UserPromptSubmit", ctx);
                e.put("prompt", prompt);
                return run(ctx, e, ctx.turnId()).filter(r -> r.exit == 0 && !r.text.isBlank())
                        .map(r -> prompt + "\n\n" + r.text).orElse(null);
            };
        };
    }

    private boolean matches(ToolCall call) {
        return matcher == null || matcher.matcher(call.name()).matches();
    }

    private record Run(int exit, String text) {
    }

    private Optional<Run> run(ToolContext ctx, ObjectNode eventJson, String key) {
        String json = Json.write(eventJson);
        String line = "printf '%s' '" + json.replace("'", "'\\''") + "' | ( " + command + " )";
        ObjectNode args = Json.MAPPER.createObjectNode().put("command", line);
        // a unique call id: the runner answers a repeated id from its record, and each hook run is a new run
        String callId = "hook-" + event.name().toLowerCase() + "-" + key + "-" + SEQ.incrementAndGet();
        ToolOutcome out = ctx.workspace().execute("bash", callId, args,
                new WorkspaceToolExecutor.Target(ctx.team(), ctx.agent(), ctx.cwd()));
        int exit = out.exitCode() == null ? (out.isError() ? -1 : 0) : out.exitCode();
        String text = out.output() == null ? "" : out.output().strip();
        if (exit != 0 && exit != BLOCK_EXIT) {
            LOG.warnf("command hook '%s' exited %d; ignored. team=%s agent=%s", command, exit, ctx.team(), ctx.agent());
        }
        return Optional.of(new Run(exit, text.isEmpty() && out.error() != null ? out.error() : text));
    }

    private static ObjectNode base(String name, ToolContext ctx) {
        ObjectNode e = Json.MAPPER.createObjectNode();
        e.put("hook_event_name", name).put("team", ctx.team()).put("agent", ctx.agent()).put("turn_id", ctx.turnId());
        return e;
    }

    private static ObjectNode toolEvent(String name, ToolCall call, ToolResult result) {
        ObjectNode e = Json.MAPPER.createObjectNode();
        e.put("hook_event_name", name).put("tool_name", call.name()).put("tool_call_id", call.id());
        e.set("tool_input", call.args());
        if (result != null) {
            e.put("tool_response", result.content()).put("is_error", result.error());
        }
        return e;
    }

    private static ObjectNode stopEvent(List<Message> conversation, ToolContext ctx) {
        ObjectNode e = base("Stop", ctx);
        Message last = conversation.isEmpty() ? null : conversation.get(conversation.size() - 1);
        e.put("last_assistant_message", last == null ? "" : last.content());
        return e;
    }
}
