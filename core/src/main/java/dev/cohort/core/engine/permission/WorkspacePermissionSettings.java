package dev.cohort.core.engine.permission;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.hooks.WorkspaceHookSettings;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.cohort.core.tools.workspace.WorkspaceReadCache;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Reads the {@code permissions} of a workspace settings file ({@code .cohort/settings.json}) <b>through the workspace
 * executor</b> (the tool runner's {@code read_file}), as {@link dev.cohort.core.engine.hooks.WorkspaceHookSettings}
 * reads its hooks: at the start of every turn, through a {@link WorkspaceReadCache} when the host has one (the same
 * cached read serves both). Thread-safe and shared by every agent of the engine: it keeps each team's <b>last good
 * rules</b>, so a file broken later (bad JSON, a bad rule, unreadable) never drops a deny: the turn keeps the last
 * good rules and the caller reports the problem. A missing file means no rules.
 */
public final class WorkspacePermissionSettings {
    /** How a problem of the file as a whole (not its {@code permissions}) names its field. */
    static final String FILE = "(file)";
    /** The line numbers read_file puts before each line. */
    private static final Pattern NUMBERED = Pattern.compile("^ *\\d+\\t", Pattern.MULTILINE);
    /** Lines read at most, as for the hooks of the same file: a longer file is refused rather than half-read. */
    private static final int MAX_LINES = WorkspaceHookSettings.MAX_LINES;
    /** The file, relative to the team workspace root; also how the messages and the rules' origin name it. */
    private final String path;

    /** A team's last good rules, parsed, and the text they came from. */
    private record Good(String text, PermissionRuleSet rules, List<PermissionRule> parsed) {
    }

    private final ConcurrentHashMap<String, Good> good = new ConcurrentHashMap<>();

    /**
     * What a read found.
     *
     * @param rules   the rules in force from the file: its own, or the last good ones when it is broken now
     * @param parsed  {@code rules} ready for the gate
     * @param problem why the file's current text is not used ({@code null}: it is, or there is no file)
     * @param wholeFile the problem is the file as a whole (unreadable, too large, not a JSON object), which the
     *                  reader of its hooks meets and reports too; {@code false}: its {@code permissions} are wrong
     */
    public record Result(PermissionRuleSet rules, List<PermissionRule> parsed, String problem, boolean wholeFile) {
    }

    public WorkspacePermissionSettings(String path) {
        this.path = path;
    }

    public String path() {
        return path;
    }

    /** The rules of team {@code target.team()}'s file: read it (the cached read when there is one) and parse it. */
    public Result read(WorkspaceToolExecutor workspace, WorkspaceToolExecutor.Target target) {
        String team = target.team();
        ToolOutcome out;
        try {
            // the hooks' read of the same file: one cached read serves both
            out = WorkspaceHookSettings.readSettingsFile(workspace, target, path);
        } catch (RuntimeException e) {
            return kept(team, "cannot read " + path + " through the tool runner: " + e.getMessage(), true);
        }
        if (out.isError()) {
            if (WorkspaceHookSettings.notFound(out)) {
                good.remove(team);
                return new Result(PermissionRuleSet.EMPTY, List.of(), null, false);
            }
            return kept(team, "cannot read " + path + ": " + out.error(), true);
        }
        String raw = out.output() == null ? "" : out.output();
        if (raw.contains("[… more lines follow") || raw.contains("[… output capped") || raw.contains("[line cut at ")) {
            return kept(team, path + " is too large to read whole (at most " + MAX_LINES + " lines and the tool"
                    + " runner's read cap)", true);
        }
        String text = NUMBERED.matcher(raw).replaceAll("");
        Good last = good.get(team);
        if (last != null && last.text().equals(text)) {
            return new Result(last.rules(), last.parsed(), null, false); // unchanged: parsed once
        }
        Good now;
        try {
            PermissionRuleSet rules = parse(text);
            now = new Good(text, rules, rules.parse(path, "permissions"));
        } catch (PermissionRuleSet.InvalidRules e) {
            return kept(team, "invalid " + path + ": " + e.getMessage(), e.field().equals(FILE));
        }
        good.put(team, now);
        return new Result(now.rules(), now.parsed(), null, false);
    }

    /**
     * The {@code permissions} of a settings file's text (other keys are ignored; none = no rules).
     *
     * @throws PermissionRuleSet.InvalidRules naming the bad field or rule, also for text that is not a JSON object
     */
    public static PermissionRuleSet parse(String text) {
        JsonNode root;
        try {
            root = text == null || text.isBlank() ? null : Json.MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new PermissionRuleSet.InvalidRules(FILE, "is not valid JSON: " + e.getOriginalMessage()
                    + " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr());
        }
        if (root == null || root.isMissingNode()) {
            return PermissionRuleSet.EMPTY;
        }
        if (!root.isObject()) {
            throw new PermissionRuleSet.InvalidRules(FILE, "must be a JSON object such as {\"permissions\": {...}}");
        }
        return PermissionRuleSet.fromJson(root.get("permissions"), "permissions");
    }

    /** The file cannot be used now: the team's last good rules, or none, with the problem. */
    private Result kept(String team, String why, boolean wholeFile) {
        Good last = good.get(team);
        if (last == null) {
            return new Result(PermissionRuleSet.EMPTY, List.of(), why + "; no valid permission rules of it were read"
                    + " before, so none of its rules apply", wholeFile);
        }
        return new Result(last.rules(), last.parsed(), why + "; the last valid permission rules of it stay in force ("
                + count(last.rules()) + ")", wholeFile);
    }

    private static String count(PermissionRuleSet r) {
        return r.allow().size() + " allow, " + r.ask().size() + " ask, " + r.deny().size() + " deny";
    }

}
