package dev.cohort.core.engine.permission;

import dev.cohort.core.shell.CommandRules;
import dev.cohort.core.tools.PermissionSubject;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The permission gate's data (CONVENTIONS #7): the team's own rules. What a shell command may do is not here: it is
 * the one command rule set, {@link dev.cohort.core.shell.CommandRules}, shared with the tool runner so that the two
 * layers cannot disagree. {@link #defaults()} is the built-in policy (no team rules).
 *
 * @param rules the team's rules, checked after the hard denies, the protected config and the mode; deny over ask over
 *              allow across all of them ({@link #decide}), whatever their order
 */
public record PermissionPolicy(List<Rule> rules) {

    public PermissionPolicy {
        rules = rules == null ? List.of() : List.copyOf(rules);
    }

    /** The built-in policy. */
    public static PermissionPolicy defaults() {
        return new PermissionPolicy(List.of());
    }

    /** The same policy with the team's {@code rules}. */
    public PermissionPolicy withRules(List<? extends Rule> teamRules) {
        return new PermissionPolicy(List.copyOf(teamRules));
    }

    /**
     * What the team's rules say of one call, {@code null} when none applies: a DENY when any deny rule matches any
     * part of it, else an ASK when any ask rule does, else ALLOW when allow rules cover it whole (every simple command
     * of a shell line: {@code Bash(npm test:*)} does not allow {@code npm test && curl x}). Claude Code's precedence:
     * a broad deny cannot carry allow exceptions.
     *
     * @param tool      the tool called
     * @param subject   what the call puts at stake (its command or path)
     * @param workspace where the call runs (paths are matched relative to the workspace or worktree root)
     */
    public PermissionDecision decide(String tool, PermissionSubject subject, CommandRules.Workspace workspace) {
        if (rules.isEmpty()) {
            return null;
        }
        RuleCandidates call = RuleCandidates.of(subject, workspace);
        for (PermissionDecision.Kind kind : List.of(PermissionDecision.Kind.DENY, PermissionDecision.Kind.ASK)) {
            for (Rule r : rules) {
                if (r.action() != kind) {
                    continue;
                }
                for (String text : call.any()) {
                    if (r.matches(tool, text)) {
                        String why = "the team rule " + r.describe() + origin(r) + (text == null ? "" : " for '"
                                + RuleCandidates.shorten(text) + "'");
                        return kind == PermissionDecision.Kind.DENY
                                ? PermissionDecision.deny("rule:" + r.describe(), "denied by " + why)
                                : PermissionDecision.ask("rule:" + r.describe(), why);
                    }
                }
            }
        }
        if (call.parts().isEmpty()) {
            return null;
        }
        for (String part : call.parts()) {
            boolean covered = false;
            for (Rule r : rules) {
                if (r.action() == PermissionDecision.Kind.ALLOW && r.matches(tool, part)) {
                    covered = true;
                    break;
                }
            }
            if (!covered) {
                return null;
            }
        }
        return PermissionDecision.ALLOW;
    }

    private static String origin(Rule r) {
        return r.origin() == null ? "" : " (" + r.origin() + ")";
    }

    /**
     * A team rule: for calls of the tools it names whose subject matches, decide {@link #action()}. Claude Code's
     * syntax is {@link PermissionRule}; {@link #of} is a regex on one tool's subject text.
     */
    public interface Rule {
        /** What the rule decides when it matches. */
        PermissionDecision.Kind action();

        /**
         * Whether the rule matches one part of a call of {@code tool}: a simple command of a shell line, the call's
         * workspace-relative path, or {@code null} when the call has neither (only a rule without specifier matches).
         */
        boolean matches(String tool, String text);

        /** How decisions name the rule, e.g. {@code deny Bash(curl:*)}. */
        String describe();

        /** Where the rule was configured (for the person and the model), {@code null} when unknown. */
        default String origin() {
            return null;
        }

        /** A rule on {@code tool} whose subject text (the command, or a file tool's path) contains {@code regex}. */
        static Rule of(String tool, String regex, PermissionDecision.Kind action) {
            return new PatternRule(tool, Pattern.compile(regex), action);
        }
    }

    /** A regex on one tool's subject text ({@code find}, not a whole match). */
    public record PatternRule(String tool, Pattern pattern, PermissionDecision.Kind action) implements Rule {
        @Override
        public boolean matches(String calledTool, String text) {
            return tool.equals(calledTool) && text != null && pattern.matcher(text).find();
        }

        @Override
        public String describe() {
            return action.name().toLowerCase(Locale.ROOT) + " " + tool + "(" + pattern.pattern() + ")";
        }
    }
}
