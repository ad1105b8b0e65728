package dev.cohort.core.engine.hooks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.cohort.core.tools.workspace.WorkspaceReadCache;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Reads the command hooks of a workspace settings file (e.g. {@code .cohort/settings.json}) <b>through the workspace
 * executor</b> (the tool runner's {@code read_file}: the engine never touches files), parsing again only when the
 * text changed. One per agent session; not thread-safe (a session runs one turn at a time). Through a
 * {@link WorkspaceReadCache} (a service's executor) the file's text is read once for every agent of a team and cwd
 * and kept until a change through that executor or the cache's ttl; a failed read is never kept.
 */
public final class WorkspaceHookSettings {
    private static final Pattern NUMBERED = Pattern.compile("^ *\\d+\\t", Pattern.MULTILINE);
    /** Lines read at most; a longer settings file is refused rather than half-read. */
    public static final int MAX_LINES = 5000;
    /** The name a fail-closed turn's refusals report. */
    public static final String FAIL_CLOSED_RULE = "hook-settings-unreadable";

    private final String path;
    private String lastText;
    private List<CommandHook> lastHooks = List.of();
    /** The file was parsed successfully at least once since it last went missing: {@link #lastHooks} are its. */
    private boolean hadGood;

    /**
     * What a read found: the hooks, or why they are the last good ones or none although the file exists.
     *
     * @param failClosed the file could not be read for an infrastructure reason (tool runner down, timeout, 5xx) and
     *                   no good hooks of it were ever read: the caller blocks every mutating tool call of the turn
     */
    public record Result(List<CommandHook> hooks, String problem, boolean failClosed) {
        public Result(List<CommandHook> hooks, String problem) {
            this(hooks, problem, false);
        }
    }

    public WorkspaceHookSettings(String path) {
        this.path = path;
    }

    public String path() {
        return path;
    }

    /**
     * The file's hooks: none when it does not exist. When it cannot be read, is too large or is invalid, a
     * {@code problem} (the caller reports it) and the <b>last good hooks</b> of the file (never fail open by dropping
     * a guard); when there never were good ones, none, and {@code failClosed} if the read itself failed (the tool
     * runner threw or answered an error other than "not found") — a malformed or too large file without earlier good
     * hooks runs the turn without them, as the file's author wrote nothing valid.
     */
    public Result read(WorkspaceToolExecutor workspace, WorkspaceToolExecutor.Target target) {
        ToolOutcome out;
        try {
            out = readSettingsFile(workspace, target, path);
        } catch (RuntimeException e) {
            return unreadable("cannot read " + path + " through the tool runner: " + e.getMessage());
        }
        if (out.isError()) {
            if (notFound(out)) {
                lastText = null;
                lastHooks = List.of();
                hadGood = false;
                return new Result(List.of(), null);
            }
            return unreadable("cannot read " + path + ": " + out.error());
        }
        String raw = out.output() == null ? "" : out.output();
        if (raw.contains("[… more lines follow") || raw.contains("[… output capped") || raw.contains("[line cut at ")) {
            return invalid(path + " is too large to read whole (at most " + MAX_LINES
                    + " lines and the tool runner's read cap)");
        }
        String text = NUMBERED.matcher(raw).replaceAll("");
        if (!text.equals(lastText)) {
            List<CommandHook> parsed;
            try {
                parsed = HookSettings.parseFile(text, path);
            } catch (HookSettings.InvalidHookSettings e) {
                lastText = null; // parse again next turn
                return invalid("invalid " + path + ": " + e.getMessage());
            }
            lastHooks = parsed;
            lastText = text;
            hadGood = true;
        }
        return new Result(lastHooks, null);
    }

    /**
     * The settings file {@code path} as read_file answers it, through the executor's cache when it has one (one read
     * serves the hooks and the permission rules of the same file); a failed read is not kept.
     */
    public static ToolOutcome readSettingsFile(WorkspaceToolExecutor workspace, WorkspaceToolExecutor.Target target,
            String path) {
        return workspace instanceof WorkspaceReadCache cache
                ? cache.get("hook-settings:" + path, target, () -> readFile(cache, target, path))
                : readFile(workspace, target, path).value();
    }

    /** The file as read_file answers it; kept unless the read failed (an error other than "not found"). */
    private static WorkspaceReadCache.Read<ToolOutcome> readFile(WorkspaceToolExecutor workspace,
            WorkspaceToolExecutor.Target target, String path) {
        ObjectNode args = Json.MAPPER.createObjectNode().put("path", path).put("limit", MAX_LINES);
        ToolOutcome out = workspace.execute("read_file", "hook-settings-" + UUID.randomUUID(), args, target);
        return new WorkspaceReadCache.Read<>(out, !out.isError() || notFound(out));
    }

    /** {@code true} when the read failed because the file does not exist (no settings: nothing to apply). */
    public static boolean notFound(ToolOutcome out) {
        return out.error().contains("not found") || out.error().contains("not-found");
    }

    /** The read failed (infrastructure): the last good hooks, or fail closed. */
    private Result unreadable(String why) {
        if (hadGood) {
            return new Result(lastHooks, why + "; this turn keeps its last valid hooks (" + lastHooks.size() + ")");
        }
        return new Result(List.of(), why + "; no valid hooks of it were read before, so this turn blocks every"
                + " mutating tool call (rule '" + FAIL_CLOSED_RULE + "')", true);
    }

    /** The file is there but unusable: the last good hooks, or none. */
    private Result invalid(String why) {
        if (hadGood) {
            return new Result(lastHooks, why + "; this turn keeps its last valid hooks (" + lastHooks.size() + ")");
        }
        return new Result(List.of(), why + "; this turn runs without its hooks");
    }
}
