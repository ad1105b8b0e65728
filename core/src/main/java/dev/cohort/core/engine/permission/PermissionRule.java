package dev.cohort.core.engine.permission;

import dev.cohort.core.tools.ToolNames;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One permission rule in Claude Code's syntax, {@code Tool} or {@code Tool(specifier)}, parsed once and matched against
 * the parts of a call ({@link RuleCandidates}). Pure.
 *
 * <ul>
 * <li>{@code Bash} / {@code Bash(spec)} → {@code bash}: {@code npm test} is exact; {@code npm run test:*} is the prefix
 * {@code npm run test} then the end or a space (not {@code npm run testx}); elsewhere {@code *} is any text, and one
 * trailing {@code " *"} also matches the bare prefix ({@code ls *} matches {@code ls} and {@code ls -la}, not
 * {@code lsof}). Matched against each simple command of the line with quotes removed, single-spaced.</li>
 * <li>{@code Read(path)} → {@code read_file}, {@code glob}, {@code grep}; {@code Edit(path)} and {@code Write(path)} →
 * {@code write_file}, {@code edit_file}; {@code Glob(path)}, {@code Grep(path)} → that tool. Gitignore-style globs
 * relative to the workspace root (a worktree's root for a call in a worktree): {@code /x} and {@code ./x} anchored at
 * the root, a pattern with a {@code /} inside also anchored, one without matches a name at any depth; {@code *} and
 * {@code ?} stay within a segment, {@code **} crosses them, {@code [a-z]} is a class; a pattern matching a directory
 * matches everything in it ({@code secrets/**} also matches {@code secrets} itself).</li>
 * <li>{@code mcp__server}, {@code mcp__server__*}, {@code mcp__server__tool}: the tools of a team's MCP server, by
 * name (no specifier).</li>
 * <li>Cohort's own tool names in lower case ({@code schedule_cron}, {@code create_worktree}…): that tool;
 * {@code bash(…)} and the file tools' names take the specifiers above, the others none.</li>
 * </ul>
 */
public final class PermissionRule implements PermissionPolicy.Rule {

    /** How decisions name the origin of the team's rules set through the host (the API). */
    public static final String TEAM_ORIGIN = "team settings";

    /** Longer rules are refused: no real rule needs more, and a decision quotes the rule. */
    public static final int MAX_LENGTH = 1000;

    /** How a specifier is read: a shell command, a workspace path, or none allowed. */
    private enum Specifier {
        COMMAND, PATH, NONE
    }

    /** Claude Code's tool names and the Cohort tools each stands for. */
    private static final Map<String, Set<String>> CLAUDE_TOOLS = Map.of(
            "Bash", Set.of("bash"),
            "Read", Set.of("read_file", "glob", "grep"),
            "Edit", Set.of("write_file", "edit_file"),
            "Write", Set.of("write_file", "edit_file"),
            "Glob", Set.of("glob"),
            "Grep", Set.of("grep"));

    /** Cohort's tools whose calls a path specifier is matched against. */
    private static final Set<String> PATH_TOOLS = Set.of("read_file", "glob", "grep", "write_file", "edit_file");

    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]*");
    private static final Pattern MCP = Pattern.compile("mcp__([A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*)(?:__(\\*|[A-Za-z0-9_.-]+))?");

    private final PermissionDecision.Kind action;
    private final String text;
    private final String origin;
    private final Set<String> tools;
    /** For an MCP rule naming a whole server: the tool-name prefix {@code mcp__server__}; else {@code null}. */
    private final String mcpPrefix;
    /** A command specifier, compiled; {@code null} = any. */
    private final Pattern command;
    /** A path specifier, compiled; {@code null} = any. */
    private final PathPattern path;

    private PermissionRule(PermissionDecision.Kind action, String text, String origin, Set<String> tools,
            String mcpPrefix, Pattern command, PathPattern path) {
        this.action = action;
        this.text = text;
        this.origin = origin;
        this.tools = tools;
        this.mcpPrefix = mcpPrefix;
        this.command = command;
        this.path = path;
    }

    /** A rule that cannot be used; the message names the rule and says why. */
    public static final class InvalidRule extends IllegalArgumentException {
        private final String rule;
        private final String reason;

        InvalidRule(String rule, String reason) {
            super("'" + rule + "': " + reason);
            this.rule = rule;
            this.reason = reason;
        }

        /** The rule as written. */
        public String rule() {
            return rule;
        }

        /** Why it was refused. */
        public String reason() {
            return reason;
        }
    }

    /**
     * Parses {@code text}.
     *
     * @param action what the rule decides (the list it came from)
     * @param text   the rule as written
     * @param origin where it was configured, for the messages ({@code null}: unsaid)
     * @throws InvalidRule naming the rule and why it cannot be used
     */
    public static PermissionRule parse(PermissionDecision.Kind action, String text, String origin) {
        if (text == null || text.isBlank()) {
            throw new InvalidRule(text == null ? "" : text, "a rule is empty; write a tool name, e.g. 'Bash' or"
                    + " 'Bash(npm test)'");
        }
        if (text.length() > MAX_LENGTH) {
            throw new InvalidRule(RuleCandidates.shorten(text), "longer than " + MAX_LENGTH + " characters");
        }
        for (int i = 0; i < text.length(); i++) {
            if (Character.isISOControl(text.charAt(i))) {
                throw new InvalidRule(text, "contains a control character (a rule is one line)");
            }
        }
        String rule = text.strip();
        int open = rule.indexOf('(');
        String name = open < 0 ? rule : rule.substring(0, open).strip();
        String spec = null;
        if (open >= 0) {
            if (!rule.endsWith(")")) {
                throw new InvalidRule(text, rule.indexOf(')', open) < 0 ? "the specifier misses its closing ')'"
                        : "nothing may follow the specifier's closing ')'");
            }
            spec = rule.substring(open + 1, rule.length() - 1).strip();
            if (spec.isEmpty()) {
                throw new InvalidRule(text, "the specifier is empty; write '" + name + "' alone for every call");
            }
        } else if (rule.indexOf(')') >= 0) {
            throw new InvalidRule(text, "a ')' without its '('");
        }
        Matcher mcp = MCP.matcher(name);
        if (name.startsWith("mcp__")) {
            if (!mcp.matches()) {
                throw new InvalidRule(text, "an MCP rule is mcp__<server>, mcp__<server>__* or mcp__<server>__<tool>");
            }
            if (spec != null) {
                throw new InvalidRule(text, "an MCP rule takes no specifier; name the tool: mcp__<server>__<tool>");
            }
            String tool = mcp.group(2);
            boolean wholeServer = tool == null || tool.equals("*");
            return new PermissionRule(action, rule, origin, wholeServer ? Set.of() : Set.of(name),
                    wholeServer ? "mcp__" + mcp.group(1) + "__" : null, null, null);
        }
        if (!NAME.matcher(name).matches()) {
            throw new InvalidRule(text, "'" + name + "' is not a tool name; a rule is Tool or Tool(specifier)");
        }
        Set<String> tools = CLAUDE_TOOLS.get(name);
        if (tools == null) {
            if (!ToolNames.known(name) && CLAUDE_TOOLS.values().stream().noneMatch(t -> t.contains(name))) {
                throw new InvalidRule(text, "Cohort has no tool '" + name + "'; rules name Bash, Read, Edit, Write,"
                        + " Glob, Grep, mcp__<server>__<tool> or one of Cohort's tools: "
                        + String.join(", ", ToolNames.all()));
            }
            tools = Set.of(name);
        }
        Specifier kind = tools.contains("bash") ? Specifier.COMMAND
                : PATH_TOOLS.containsAll(tools) ? Specifier.PATH : Specifier.NONE;
        if (spec == null || spec.equals("*") && kind == Specifier.COMMAND) {
            return new PermissionRule(action, rule, origin, tools, null, null, null);
        }
        return switch (kind) {
            case COMMAND -> new PermissionRule(action, rule, origin, tools, null, commandPattern(text, spec), null);
            case PATH -> new PermissionRule(action, rule, origin, tools, null, null, PathPattern.parse(text, spec));
            case NONE -> throw new InvalidRule(text, "'" + name + "' takes no specifier; write '" + name
                    + "' for every call of it");
        };
    }

    /** {@code spec} of a Bash rule as a regex on a single-spaced simple command. */
    private static Pattern commandPattern(String rule, String spec) {
        String s = spec.replaceAll("\\s+", " ");
        boolean legacyPrefix = s.endsWith(":*");
        if (legacyPrefix) {
            s = s.substring(0, s.length() - 2).stripTrailing();
            if (s.isEmpty()) {
                throw new InvalidRule(rule, "':*' needs a command before it, e.g. 'Bash(npm run test:*)'");
            }
        }
        if (s.contains(":*")) {
            throw new InvalidRule(rule, "':*' may only end the specifier (a prefix match); use '*' elsewhere");
        }
        boolean optionalTail = !legacyPrefix && s.endsWith(" *") && s.indexOf('*') == s.length() - 1;
        if (optionalTail) {
            s = s.substring(0, s.length() - 2);
        }
        StringBuilder re = new StringBuilder();
        int from = 0;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == '*') {
                re.append(Pattern.quote(s.substring(from, i))).append(".*");
                from = i + 1;
            }
        }
        re.append(Pattern.quote(s.substring(from)));
        if (legacyPrefix || optionalTail) {
            re.append("(?: .*)?");
        }
        return Pattern.compile(re.toString(), Pattern.DOTALL);
    }

    @Override
    public PermissionDecision.Kind action() {
        return action;
    }

    /** The rule as written (trimmed), e.g. {@code Bash(npm run test:*)}. */
    public String text() {
        return text;
    }

    @Override
    public String origin() {
        return origin;
    }

    @Override
    public boolean matches(String tool, String part) {
        if (mcpPrefix != null ? !tool.startsWith(mcpPrefix) : !tools.contains(tool)) {
            return false;
        }
        if (command != null) {
            return part != null && command.matcher(part.strip().replaceAll("\\s+", " ")).matches();
        }
        if (path != null) {
            return part != null && path.matches(part);
        }
        return true;
    }

    @Override
    public String describe() {
        return action.name().toLowerCase(Locale.ROOT) + " " + text;
    }

    @Override
    public String toString() {
        return describe();
    }
}
