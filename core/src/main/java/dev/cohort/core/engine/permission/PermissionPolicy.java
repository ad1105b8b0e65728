package dev.cohort.core.engine.permission;

import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The permission gate's data (CONVENTIONS #7): which executables are hard-denied, which ask as destructive, which
 * are read-only enough for {@code plan} mode, plus the team's own rules. {@link #defaults()} is the built-in policy.
 *
 * @param hardDeny     executables that never run (privilege escalation, power, disk formatting)
 * @param destructive  executables whose use asks in {@code default} and {@code accept-edits} mode
 * @param readOnly     executables {@code plan} mode lets through (with no output redirection)
 * @param wrappers     executables that run their arguments as a command ({@code xargs rm} is {@code rm})
 * @param rules        the team's rules, checked after the hard denies, first match wins
 */
public record PermissionPolicy(Set<String> hardDeny, Set<String> destructive, Set<String> readOnly,
        Set<String> wrappers, List<Rule> rules) {

    public PermissionPolicy {
        rules = rules == null ? List.of() : List.copyOf(rules);
    }

    /** The built-in policy. */
    public static PermissionPolicy defaults() {
        return new PermissionPolicy(
                Set.of("sudo", "su", "doas", "pkexec", "runuser", "shutdown", "reboot", "halt", "poweroff", "mkfs",
                        "mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "parted", "format"),
                Set.of("rm", "rmdir", "shred", "unlink", "truncate", "dd", "del", "erase", "rd", "srm", "kill",
                        "pkill", "killall"),
                Set.of("ls", "cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "find", "wc", "pwd",
                        "echo", "printf", "tree", "stat", "file", "which", "type", "du", "df", "diff", "sort", "uniq",
                        "cut", "tr", "date", "whoami", "uname", "true", "basename", "dirname", "realpath", "jq", "git",
                        "sed", "nl", "cmp", "md5sum", "sha256sum", "env", "printenv", "id", "hostname", "column"),
                Set.of("xargs", "env", "nohup", "timeout", "nice", "time", "command", "exec", "stdbuf", "setsid"),
                List.of());
    }

    /** The same policy with the team's {@code rules}. */
    public PermissionPolicy withRules(List<Rule> teamRules) {
        return new PermissionPolicy(hardDeny, destructive, readOnly, wrappers, teamRules);
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
