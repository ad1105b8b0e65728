package dev.cohort.core.engine.permission;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/** Decisions about one bash command line, on tokens (never substrings). Pure. */
public final class CommandRules {
    private static final Pattern FORK_BOMB = Pattern.compile(":\\s*\\(\\s*\\)\\s*\\{\\s*:\\s*\\|\\s*:\\s*&\\s*}");
    private static final Pattern BLOCK_DEVICE = Pattern.compile("of=/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|md|dm-).*");
    private static final Set<String> ROOTS = Set.of("/", "/*", "~", "~/", "~/*", "$HOME", "${HOME}", "$HOME/", "/.");
    private static final Set<String> SHELLS = Set.of("sh", "bash", "zsh", "dash", "ksh", "fish");
    private static final Set<String> DOWNLOADERS = Set.of("curl", "wget");
    private static final Set<String> SAFE_TARGETS = Set.of("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty");
    private static final Set<String> GIT_READ = Set.of("status", "log", "diff", "show", "branch", "rev-parse",
            "ls-files", "blame", "grep", "describe", "shortlog", "remote", "tag", "config");

    private CommandRules() {
    }

    /** A hard denial of {@code command}, if any rule applies (these never run, in any mode). */
    public static Optional<PermissionDecision> hardDeny(String command, PermissionPolicy p) {
        return hardDeny(command, p, 0);
    }

    private static Optional<PermissionDecision> hardDeny(String command, PermissionPolicy p, int depth) {
        if (FORK_BOMB.matcher(command).find()) {
            return Optional.of(PermissionDecision.deny("hard-deny:fork-bomb", "fork bombs are never run"));
        }
        ShellCommand sc = ShellCommand.parse(command);
        if (!sc.parsed()) {
            // the tool runner refuses what it cannot parse too; saying so here spares an approval that cannot help
            return Optional.of(PermissionDecision.deny("hard-deny:unparseable",
                    "the command is not valid shell (unbalanced quotes or parentheses, or nested too deep)"));
        }
        for (ShellCommand.Simple raw : sc.commands()) {
            ShellCommand.Simple c = unwrap(raw, p);
            String exe = c.exe();
            if (p.hardDeny().contains(exe) || exe.startsWith("mkfs.")) {
                return Optional.of(PermissionDecision.deny("hard-deny:" + exe, "'" + exe + "' is never run by agents"));
            }
            List<String> args = c.args();
            if (exe.equals("rm") && recursive(args) && args.stream().anyMatch(ROOTS::contains)) {
                return Optional.of(PermissionDecision.deny("hard-deny:rm-root",
                        "recursive rm of / or the home directory is never run"));
            }
            if (exe.equals("dd") && args.stream().anyMatch(a -> BLOCK_DEVICE.matcher(a).matches())) {
                return Optional.of(PermissionDecision.deny("hard-deny:dd-device", "dd onto a block device is never run"));
            }
            if (SHELLS.contains(exe) && c.previous() != null && DOWNLOADERS.contains(unwrap(c.previous(), p).exe())) {
                return Optional.of(PermissionDecision.deny("hard-deny:pipe-to-shell",
                        "piping a download into a shell is never run; download, inspect, then run"));
            }
            if (SHELLS.contains(exe) && depth < 4) {
                int ci = args.indexOf("-c");
                if (ci >= 0 && ci + 1 < args.size()) {
                    Optional<PermissionDecision> inner = hardDeny(args.get(ci + 1), p, depth + 1);
                    if (inner.isPresent()) {
                        return inner;
                    }
                }
            }
        }
        return Optional.empty();
    }

    /** Why {@code command} is destructive, if it is (an ask in default mode). */
    public static Optional<String> destructive(String command, PermissionPolicy p) {
        ShellCommand sc = ShellCommand.parse(command);
        if (!sc.parsed()) {
            return Optional.of("the command could not be parsed, so its effect is unknown");
        }
        for (ShellCommand.Simple raw : sc.commands()) {
            ShellCommand.Simple c = unwrap(raw, p);
            String exe = c.exe();
            List<String> args = c.args();
            if (p.destructive().contains(exe)) {
                return Optional.of("destructive command '" + exe + "'");
            }
            if (exe.equals("find") && args.stream().anyMatch(a -> a.equals("-delete") || a.equals("-exec")
                    || a.equals("-execdir"))) {
                return Optional.of("find with -delete/-exec");
            }
            if (exe.equals("git") && !args.isEmpty()) {
                String sub = args.get(0);
                if (sub.equals("clean") || sub.equals("reset") && args.contains("--hard")
                        || sub.equals("push") && (args.contains("--force") || args.contains("-f")
                        || args.stream().anyMatch(a -> a.startsWith("--force")))
                        || sub.equals("branch") && (args.contains("-D") || args.contains("--delete"))
                        || (sub.equals("checkout") || sub.equals("restore")) && args.contains("--")) {
                    return Optional.of("destructive git command 'git " + sub + "'");
                }
            }
            if ((exe.equals("chmod") || exe.equals("chown")) && (recursive(args) || args.contains("777"))) {
                return Optional.of("recursive or world-writable '" + exe + "'");
            }
            for (String t : raw.writeTargets()) {
                if (outsideWorkspace(t) && !SAFE_TARGETS.contains(t)) {
                    return Optional.of("writes outside the workspace (" + t + ")");
                }
            }
        }
        return Optional.empty();
    }

    /** {@code true} when every command only reads (for {@code plan} mode). */
    public static boolean readOnly(String command, PermissionPolicy p) {
        ShellCommand sc = ShellCommand.parse(command);
        if (!sc.parsed() || sc.commands().isEmpty()) {
            return false;
        }
        for (ShellCommand.Simple c : sc.commands()) {
            if (!c.writeTargets().stream().allMatch(SAFE_TARGETS::contains)) {
                return false;
            }
            String exe = c.exe();
            List<String> args = c.args();
            if (!p.readOnly().contains(exe)) {
                return false;
            }
            if (exe.equals("git") && (args.isEmpty() || !GIT_READ.contains(args.get(0))
                    || args.get(0).equals("branch") && args.size() > 1 && !args.get(1).startsWith("-")
                    || args.get(0).equals("config") && !args.contains("--get") && !args.contains("--list"))) {
                return false;
            }
            if (exe.equals("sed") && args.stream().anyMatch(a -> a.startsWith("-i") || a.equals("--in-place"))) {
                return false;
            }
            if (exe.equals("find") && args.stream().anyMatch(a -> a.startsWith("-exec") || a.equals("-delete")
                    || a.startsWith("-ok") || a.startsWith("-fprint"))) {
                return false;
            }
            if (exe.equals("env") && !args.isEmpty()) {
                return false; // env runs its arguments as a command
            }
        }
        return true;
    }

    /** {@code true} for an absolute path, a home path, or a relative path that climbs out with {@code ..}. */
    public static boolean outsideWorkspace(String path) {
        if (path == null || path.isBlank()) {
            return false;
        }
        String p = path.replace('\\', '/');
        if (p.startsWith("/") || p.startsWith("~") || p.startsWith("$") || p.matches("[A-Za-z]:.*")) {
            return true;
        }
        int depth = 0;
        for (String part : p.split("/")) {
            if (part.equals("..")) {
                if (--depth < 0) {
                    return true;
                }
            } else if (!part.isEmpty() && !part.equals(".")) {
                depth++;
            }
        }
        return false;
    }

    private static boolean recursive(List<String> args) {
        return args.stream().anyMatch(a -> a.equals("--recursive") || a.matches("-[a-zA-Z]*[rR][a-zA-Z]*"));
    }

    /** {@code xargs rm -rf} is {@code rm -rf}: skip wrapper executables and their options. */
    private static ShellCommand.Simple unwrap(ShellCommand.Simple c, PermissionPolicy p) {
        ShellCommand.Simple cur = c;
        for (int guard = 0; guard < 4 && p.wrappers().contains(cur.exe()); guard++) {
            List<String> args = cur.args();
            int i = 0;
            while (i < args.size() && (args.get(i).startsWith("-") || args.get(i).matches("[0-9.]+[smhd]?")
                    || args.get(i).matches("[A-Za-z_][A-Za-z0-9_]*=.*"))) {
                i++;
            }
            if (i >= args.size()) {
                return cur;
            }
            cur = cur.withWords(args.subList(i, args.size()));
        }
        return cur;
    }
}
