package dev.cohort.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns one event of a team's stream into the lines {@code cohort chat} prints: pure (no I/O), so it is unit-tested.
 * Events of the lead carry no prefix; a teammate's are prefixed {@code [name]}, a subagent's {@code [lead›sub]}.
 * Every string of an event is {@link TerminalText#safe} before it is styled: model and tool text never reaches the
 * terminal as control sequences, whatever the event type.
 */
final class EventFormatter {

    /** The longest argument preview of a tool call. */
    static final int ARGS_MAX = 120;
    /** How many lines of a tool result's preview are shown, and how wide each. */
    static final int PREVIEW_LINES = 4;
    static final int LINE_MAX = 160;

    /** The argument a person recognises a call by, per tool; other tools show their compact JSON. */
    private static final Map<String, String> MAIN_ARG = Map.ofEntries(Map.entry("bash", "command"),
            Map.entry("read_file", "path"), Map.entry("write_file", "path"), Map.entry("edit_file", "path"),
            Map.entry("glob", "pattern"), Map.entry("grep", "pattern"), Map.entry("load_skill", "name"),
            Map.entry("get_task", "task_id"), Map.entry("claim_task", "task_id"), Map.entry("complete_task", "task_id"),
            Map.entry("create_task", "subject"), Map.entry("spawn_subagent", "description"),
            Map.entry("cancel_cron", "job_id"), Map.entry("spawn_teammate", "name"), Map.entry("send_message", "to"),
            Map.entry("create_worktree", "name"), Map.entry("remove_worktree", "name"), Map.entry("keep_worktree", "name"));

    private final Style s;

    EventFormatter(Style style) {
        this.s = style;
    }

    /** The lines to print for {@code event}; empty when it says nothing a person needs to see. */
    List<String> format(JsonNode raw) {
        // the one choke point: every branch below (and any added later) only sees neutralised text
        JsonNode event = TerminalText.safe(raw);
        String type = event.path("type").asText();
        JsonNode d = event.path("data");
        String who = who(event);
        List<String> out = new ArrayList<>();
        switch (type) {
            case "turn_started" -> out.add(who + s.dim("── turn started" + paren(d.path("source").asText(""))));
            case "assistant_message" -> {
                String text = d.path("text").asText("");
                if (!text.isBlank()) {
                    text.strip().lines().forEach(l -> out.add(who + l));
                }
            }
            case "tool_call_started" -> {
                String tool = d.path("tool").asText("?");
                String args = argsPreview(tool, d.get("args"));
                out.add(who + s.cyan("→ " + tool) + (args.isEmpty() ? "" : " " + args));
            }
            case "tool_call_finished" -> {
                String tool = d.path("tool").asText("?");
                boolean error = d.path("error").asBoolean(false);
                String head = error ? s.red("✗ " + tool + " failed") : s.green("← " + tool);
                String meta = d.has("durationMs") ? d.path("durationMs").asLong() + " ms" : "";
                if (d.hasNonNull("rule")) {
                    meta += (meta.isEmpty() ? "" : ", ") + "rule " + d.path("rule").asText();
                }
                out.add(who + head + (meta.isEmpty() ? "" : s.dim(" (" + meta + ")")));
                preview(d.path("preview").asText("")).forEach(l -> out.add(who + s.dim("  │ " + l)));
            }
            case "turn_completed" -> {
                String reason = d.path("reason").asText("");
                String status = d.hasNonNull("status") ? d.get("status").asText()
                        : "completed".equals(reason) ? "completed" : "failed";
                if ("completed".equals(status)) {
                    out.add(who + s.dim("── turn completed" + usage(d)));
                } else {
                    String why = d.hasNonNull("message") ? d.get("message").asText()
                            : d.hasNonNull("text") ? d.get("text").asText() : "";
                    out.add(who + s.red("── turn ended: " + (reason.isEmpty() ? status : reason) + (why.isBlank() ? "" : " - " + oneLine(why, 300)))
                            + s.dim(usage(d)));
                }
            }
            case "approval_requested" -> out.add(who + s.yellow("? approval needed: " + d.path("tool").asText("?") + " "
                    + argsPreview(d.path("tool").asText(""), d.get("args")))
                    + s.dim(d.hasNonNull("reason") ? " - " + oneLine(d.get("reason").asText(), 200) : "")
                    + s.dim(" [" + shortId(d.path("approvalId").asText()) + "]"));
            case "approval_resolved" -> {
                String st = d.path("status").asText("?");
                String line = "approval " + shortId(d.path("approvalId").asText()) + " " + st
                        + (d.hasNonNull("answer") && !d.get("answer").asText().isBlank() ? ": " + d.get("answer").asText() : "");
                out.add(who + switch (st) {
                    case "approved" -> s.green("✓ " + line);
                    case "denied" -> s.red("✗ " + line);
                    default -> s.yellow("… " + line);
                });
            }
            case "task_created" -> {
                List<String> deps = texts(d.path("blockedBy"));
                out.add(who + s.blue("+ " + d.path("id").asText() + " ") + d.path("subject").asText()
                        + (deps.isEmpty() ? "" : s.dim(" (blocked by " + String.join(", ", deps) + ")")));
            }
            case "task_claimed" -> out.add(who + s.blue("● " + d.path("id").asText()) + " " + d.path("subject").asText()
                    + s.dim(" claimed by " + d.path("owner").asText("?")));
            case "task_completed" -> {
                List<String> ub = new ArrayList<>();
                d.path("unblocked").forEach(u -> ub.add(u.path("id").asText() + " " + u.path("subject").asText()));
                out.add(who + s.green("✓ " + d.path("id").asText()) + " " + d.path("subject").asText()
                        + s.dim(" completed by " + d.path("owner").asText("?"))
                        + (ub.isEmpty() ? "" : s.dim("; unblocked: " + String.join(", ", ub))));
            }
            case "todo_updated" -> {
                out.add(who + s.magenta("todos:"));
                d.path("todos").forEach(t -> {
                    String st = t.path("status").asText();
                    String content = t.path("content").asText();
                    out.add(who + "  " + switch (st) {
                        case "completed" -> s.green("[x]") + " " + s.dim(content);
                        case "in_progress" -> s.yellow("[>]") + " " + s.bold(content);
                        default -> "[ ] " + content;
                    });
                });
            }
            case "model_retry" -> out.add(who + s.yellow("↻ " + retry(d)));
            case "compacted" -> out.add(who + s.dim("⇣ context compacted (" + d.path("layer").asText("?") + ", "
                    + d.path("tokensBefore").asLong() + " → " + d.path("tokensAfter").asLong() + " tokens)"));
            case "protocol_updated" -> out.add(protocol(d));
            case "budget_warning" -> out.add(who + s.yellow("! " + d.path("message").asText("budget warning")));
            case "budget_exceeded" -> out.add(who + s.red("■ " + d.path("message").asText("budget exceeded")));
            case "error" -> out.add(who + s.red("error: " + d.path("message").asText("(no message)")));
            case "cron_fired" -> out.add(who + s.magenta("⏰ cron " + d.path("jobId").asText() + " fired")
                    + s.dim(" (" + d.path("cron").asText() + ") ") + oneLine(d.path("prompt").asText(""), ARGS_MAX));
            case "background_started" -> out.add(who + s.dim("⧗ background " + d.path("id").asText() + ": "
                    + oneLine(d.path("command").asText(""), ARGS_MAX)));
            case "background_finished" -> out.add(who + s.dim("⧗ background " + d.path("id").asText() + " "
                    + d.path("status").asText() + (d.hasNonNull("exitCode") ? " (exit " + d.get("exitCode").asInt() + ")" : "")));
            case "memory_updated" -> out.add(who + s.dim("memory " + d.path("action").asText("updated")
                    + names(" created ", d.path("created")) + names(" updated ", d.path("updated"))));
            default -> out.add(who + s.dim(type + " " + oneLine(Json.write(d), ARGS_MAX)));
        }
        // a newline left in a one-line field (a task subject, an answer) would start a line no prefix marks; the
        // text is already neutralised, and TerminalText.line here would also show our own colours as ^[
        out.replaceAll(l -> l.replace("\n", TerminalText.NEWLINE));
        return out;
    }

    /** The prefix of the event's agent ({@link #prefix}). */
    private String who(JsonNode event) {
        return prefix(s, event.path("agent").asText("lead"), event.path("data").path("subagent").asBoolean(false));
    }

    /** {@code ""} for the lead, {@code "[name] "} for another agent, {@code "[name›sub] "} for a subagent. */
    static String prefix(Style s, String agent, boolean subagent) {
        String name = agent == null || agent.isEmpty() ? "lead" : TerminalText.line(agent);
        if ("lead".equals(name) && !subagent) {
            return "";
        }
        return s.dim("[" + name + (subagent ? "›sub" : "") + "] ");
    }

    /**
     * A tool call's arguments in one short line: the main argument of a known tool ({@code bash} → the command),
     * else compact JSON; {@code args} may be an object or the JSON text (possibly cut short by the engine).
     */
    static String argsPreview(String tool, JsonNode args) {
        if (args == null || args.isNull() || args.isMissingNode()) {
            return "";
        }
        JsonNode obj = tree(args);
        if (obj == null) {
            return oneLine(args.asText(), ARGS_MAX);
        }
        if ("todo_write".equals(tool) && obj.path("todos").isArray()) {
            int n = obj.path("todos").size();
            return n + " item" + (n == 1 ? "" : "s");
        }
        String key = MAIN_ARG.get(tool);
        if (key != null && obj.path(key).isValueNode()) {
            return oneLine(obj.path(key).asText(), ARGS_MAX);
        }
        if (obj.isObject() && obj.size() == 0) {
            return "";
        }
        return oneLine(Json.write(obj), ARGS_MAX);
    }

    /** The arguments as a tree: themselves, or parsed from the JSON text the engine passed; {@code null} if not JSON. */
    private static JsonNode tree(JsonNode args) {
        if (!args.isTextual()) {
            return args;
        }
        try {
            return Json.MAPPER.readTree(args.asText());
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * The call a person approves, whole: the main argument of a known tool ({@code bash} → the command) as written,
     * then the other arguments as compact JSON; else all arguments as compact JSON, or the text the engine passed.
     * Not cut and not neutralised: the caller does both ({@link TerminalText#bounded}).
     */
    static String approvalCall(String tool, JsonNode args) {
        if (args == null || args.isNull() || args.isMissingNode()) {
            return "";
        }
        JsonNode obj = tree(args);
        if (obj == null || args.isTextual() && !obj.isObject()) {
            return args.asText();
        }
        if (!obj.isObject()) {
            return Json.write(obj);
        }
        String key = MAIN_ARG.get(tool);
        if (key != null && obj.path(key).isValueNode()) {
            ObjectNode rest = ((ObjectNode) obj).deepCopy();
            rest.remove(key);
            return obj.path(key).asText() + (rest.isEmpty() ? "" : " " + Json.write(rest));
        }
        return obj.isEmpty() ? "" : Json.write(obj);
    }

    /** The first {@link #PREVIEW_LINES} non-blank lines of a result, each at most {@link #LINE_MAX} wide. */
    static List<String> preview(String text) {
        List<String> lines = TerminalText.safe(text).strip().lines().filter(l -> !l.isBlank()).toList();
        List<String> out = new ArrayList<>();
        for (int i = 0; i < Math.min(PREVIEW_LINES, lines.size()); i++) {
            out.add(cut(lines.get(i).stripTrailing(), LINE_MAX));
        }
        if (lines.size() > PREVIEW_LINES) {
            out.add("… " + (lines.size() - PREVIEW_LINES) + " more line" + (lines.size() - PREVIEW_LINES == 1 ? "" : "s"));
        }
        return out;
    }

    /**
     * {@link TerminalText#safe} text with whitespace runs (newlines included) collapsed to one space, then cut to
     * {@code max} with an ellipsis: a preview, never the text a person approves.
     */
    static String oneLine(String text, int max) {
        return cut(TerminalText.safe(text).strip().replaceAll("\\s+", " "), max);
    }

    /** {@code text} cut to {@code max} characters with an ellipsis (a character pair never split). */
    static String cut(String text, int max) {
        if (text.length() <= max) {
            return text;
        }
        int end = Math.max(0, max - 1);
        if (end > 0 && Character.isHighSurrogate(text.charAt(end - 1))) {
            end--;
        }
        return text.substring(0, end) + "…";
    }

    /** The first 8 characters of a UUID-like id: enough to recognise it, the full id is in {@code cohort approve}. */
    static String shortId(String id) {
        String safe = TerminalText.line(id);
        return safe.length() > 8 ? safe.substring(0, 8) : safe;
    }

    /** A shutdown or plan-approval request's change, prefixed with the teammate it concerns. */
    private String protocol(JsonNode d) {
        String id = shortId(d.path("id").asText("?"));
        String status = d.path("status").asText("?");
        String by = d.path("decidedBy").asText("");
        String feedback = d.path("feedback").isTextual() ? " — " + oneLine(d.path("feedback").asText(), 120) : "";
        if ("plan_approval".equals(d.path("type").asText())) {
            String who = prefix(s, d.path("sender").asText(), false);
            return who + switch (status) {
                case "pending" -> s.yellow("? plan " + id + " submitted for approval: "
                        + oneLine(d.path("payload").path("plan").asText(""), 120))
                        + s.dim(" (/approve-plan " + id + " or /reject-plan " + id + " <feedback>)");
                case "approved" -> s.green("✓ plan " + id + " approved" + (by.isEmpty() ? "" : " by " + by) + feedback);
                case "rejected" -> s.red("✗ plan " + id + " rejected" + (by.isEmpty() ? "" : " by " + by) + feedback);
                default -> s.dim("plan " + id + " " + status + feedback);
            };
        }
        String who = prefix(s, d.path("target").asText(), false);
        return who + switch (status) {
            case "pending" -> s.dim("⏻ shutdown requested [" + id + "]");
            case "approved" -> s.green("⏻ shutdown accepted [" + id + "]");
            case "expired" -> s.yellow("⏻ no answer to shutdown [" + id + "]: stopped anyway, its tasks released");
            default -> s.dim("⏻ shutdown " + status + " [" + id + "]" + feedback);
        };
    }

    private static String paren(String s) {
        return s.isBlank() ? "" : " (" + s + ")";
    }

    private static String usage(JsonNode d) {
        List<String> parts = new ArrayList<>();
        if (d.has("modelCalls")) {
            int n = d.get("modelCalls").asInt();
            parts.add(n + " model call" + (n == 1 ? "" : "s"));
        }
        JsonNode u = d.path("usage");
        if (u.has("inputTokens")) {
            parts.add(u.path("inputTokens").asLong() + " in / " + u.path("outputTokens").asLong() + " out tokens");
        }
        String usd = String.format(Locale.ROOT, "$%.4f", u.path("costUsd").asDouble());
        if (u.path("unpricedCalls").asLong(0) > 0) {
            parts.add(u.path("costUsd").asDouble(0) > 0 ? usd + " + unknown price" : "unknown price");
        } else if (u.path("costUsd").asDouble(0) > 0) {
            parts.add(usd);
        }
        return parts.isEmpty() ? "" : " · " + String.join(" · ", parts);
    }

    private static String retry(JsonNode d) {
        String action = d.path("action").asText("retry");
        return switch (action) {
            case "retry" -> "model call failed (" + status(d) + "), retry " + d.path("attempt").asInt() + "/"
                    + d.path("maxAttempts").asInt() + " in " + d.path("delayMs").asLong() + " ms";
            case "fallback" -> "switching model " + d.path("from").asText() + " → " + d.path("to").asText()
                    + " (" + status(d) + ")";
            case "reactive_compact" -> "context too long (" + status(d) + "), compacting and retrying";
            case "escalate_max_tokens" -> "answer cut off, retrying with a larger output limit";
            case "truncated_tool_calls" -> "tool calls cut off at the output limit, asking again";
            case "continue" -> "answer cut off, asking the model to continue (" + d.path("continuation").asInt() + ")";
            case "continuation_limit" -> "answer still cut off after " + d.path("max").asInt() + " continuations";
            default -> "model " + action + " " + oneLine(Json.write(d), ARGS_MAX);
        };
    }

    private static String status(JsonNode d) {
        String st = d.hasNonNull("status") ? d.get("status").asText() : "";
        String code = d.hasNonNull("code") ? d.get("code").asText() : "";
        String both = (st + " " + code).strip();
        return both.isEmpty() ? "error" : both;
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        for (Iterator<JsonNode> it = array.elements(); it.hasNext();) {
            out.add(it.next().asText());
        }
        return out;
    }

    private static String names(String label, JsonNode array) {
        List<String> t = texts(array);
        return t.isEmpty() ? "" : label + String.join(", ", t);
    }
}
