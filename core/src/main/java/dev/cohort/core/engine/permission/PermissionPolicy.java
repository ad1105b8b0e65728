package dev.cohort.core.engine.permission;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The permission gate's data (CONVENTIONS #7): the team's own rules. What a shell command may do is not here: it is
 * the one command rule set, {@link dev.cohort.core.shell.CommandRules}, shared with the tool runner so that the two
 * layers cannot disagree. {@link #defaults()} is the built-in policy (no team rules).
 *
 * @param rules the team's rules, checked after the hard denies, first match wins
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
    public PermissionPolicy withRules(List<Rule> teamRules) {
        return new PermissionPolicy(teamRules);
    }

    /**
     * A team rule: for calls of {@code tool} whose subject (the bash command, or a file tool's path) matches
     * {@code pattern}, decide {@code action}.
     */
    public record Rule(String tool, Pattern pattern, PermissionDecision.Kind action) {
        public static Rule of(String tool, String regex, PermissionDecision.Kind action) {
            return new Rule(tool, Pattern.compile(regex), action);
        }

        public String describe() {
            return action.name().toLowerCase() + " " + tool + "(" + pattern.pattern() + ")";
        }
    }
}
