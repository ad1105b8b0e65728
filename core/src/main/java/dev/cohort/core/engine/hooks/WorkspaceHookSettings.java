package dev.cohort.core.engine.hooks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Reads the command hooks of a workspace settings file (e.g. {@code .cohort/settings.json}) <b>through the workspace
 * executor</b> (the tool runner's {@code read_file}: the engine never touches files), parsing again only when the
 * text changed. One per agent session; not thread-safe (a session runs one turn at a time).
 */
public final class WorkspaceHookSettings {
    private static final Pattern NUMBERED = Pattern.compile("^ *\\d+\\t", Pattern.MULTILINE);
    /** Lines read at most; a longer settings file is refused rather than half-read. */
    private static final int MAX_LINES = 5000;

    private final String path;
    private String lastText;
    private List<CommandHook> lastHooks = List.of();

    /** What a read found: the hooks, or why there are none although the file exists. */
    public record Result(List<CommandHook> hooks, String problem) {
    }

    public WorkspaceHookSettings(String path) {
        this.path = path;
    }

    public String path() {
        return path;
    }

    /**
     * The file's hooks: none when it does not exist; none and a {@code problem} when it cannot be read or is invalid
     * (then the caller reports it and the turn runs without them).
     */
    public Result read(WorkspaceToolExecutor workspace, WorkspaceToolExecutor.Target target) {
        ObjectNode args = Json.MAPPER.createObjectNode().put("path", path).put("limit", MAX_LINES);
        ToolOutcome out;
        try {
            out = workspace.execute("read_file", "hook-settings-" + UUID.randomUUID(), args, target);
        } catch (RuntimeException e) {
            return new Result(List.of(), "cannot read " + path + " through the tool runner: " + e.getMessage()
                    + "; this turn runs without its hooks");
        }
        if (out.isError()) {
            if (out.error().contains("not found") || out.error().contains("not-found")) {
                lastText = null;
                lastHooks = List.of();
                return new Result(List.of(), null);
            }
            return new Result(List.of(), "cannot read " + path + ": " + out.error() + "; this turn runs without its hooks");
        }
        String raw = out.output() == null ? "" : out.output();
        if (raw.contains("[… more lines follow") || raw.contains("[… output capped") || raw.contains("[line cut at ")) {
            return new Result(List.of(), path + " is too large to read whole (at most " + MAX_LINES
                    + " lines and the tool runner's read cap); this turn runs without its hooks");
        }
        String text = NUMBERED.matcher(raw).replaceAll("");
        if (!text.equals(lastText)) {
            try {
                lastHooks = HookSettings.parseFile(text, path);
            } catch (HookSettings.InvalidHookSettings e) {
                lastText = null;
                lastHooks = List.of();
                return new Result(List.of(), "invalid " + path + ": " + e.getMessage() + "; this turn runs without its hooks");
            }
            lastText = text;
        }
        return new Result(lastHooks, null);
    }
}
