package dev.cohort.toolrunner.service;

import dev.cohort.core.shell.ShellParser;
import dev.cohort.core.shell.ShellParser.Redirect;
import dev.cohort.core.shell.ShellParser.SimpleCommand;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The runner's last line of defence (the engine's permission gate comes first): a hard-deny list evaluated on the
 * <b>tokenised</b> command, never on substrings, so {@code echo pseudocode}, {@code 2> /dev/null} and
 * {@code perform} pass while {@code RM -rf /}, {@code rm\t-r -f /} or {@code bash -c "sudo x"} do not.
 * Pure; the decision table is unit-tested.
 *
 * <p>Each simple command (nested substitutions and {@code bash -c} / {@code eval} strings included) is reduced to
 * its executable (basename, lower case, after variable assignments and wrappers such as {@code env}, {@code nohup},
 * {@code timeout}, {@code xargs}) and arguments, then checked against the rules below.
 */
public final class CommandPolicy {

    /** A decision: allowed, or denied by a named rule with a reason for the model. */
    public record Decision(boolean allowed, String rule, String reason) {
        static final Decision ALLOW = new Decision(true, null, null);

        static Decision deny(String rule, String reason) {
            return new Decision(false, rule, reason);
        }
    }

    /** Where the command runs, for rules about the workspace root. */
    public record Context(Path workspaceRoot, Path cwd) {
    }

    private static final int MAX_NESTING = 6;
    private static final Set<String> PRIVILEGE = Set.of("sudo", "su", "doas", "pkexec", "runuser", "sudoedit");
    private static final Set<String> POWER = Set.of("shutdown", "reboot", "halt", "poweroff");
    private static final Set<String> POWER_VERBS = Set.of("poweroff", "reboot", "halt", "kexec", "suspend",
            "hibernate", "emergency", "rescue");
    private static final Set<String> FS_DESTROY = Set.of("mke2fs", "mkswap", "wipefs", "mkdosfs", "sfdisk",
            "fdisk", "parted", "cfdisk", "sgdisk");
    private static final Set<String> SHELLS = Set.of("sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish",
            "csh", "tcsh");
    private static final Set<String> DOWNLOADERS = Set.of("curl", "wget", "fetch", "aria2c", "http", "https");
    private static final Set<String> SAFE_DEVICES = Set.of("/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr",
            "/dev/stdin", "/dev/tty", "/dev/full", "/dev/random", "/dev/urandom");
    private static final Set<String> DEVICE_WRITERS = Set.of("tee", "cp", "mv", "install", "shred", "cat", "pv");
    /** Wrappers that run their arguments as a command, with the options that take a value. */
    private static final Map<String, Set<String>> WRAPPERS = Map.ofEntries(
            Map.entry("env", Set.of("-u", "--unset", "-C", "--chdir", "-S", "--split-string")),
            Map.entry("nohup", Set.of()),
            Map.entry("time", Set.of("-f", "-o", "--format", "--output")),
            Map.entry("command", Set.of()),
            Map.entry("builtin", Set.of()),
            Map.entry("exec", Set.of("-a")),
            Map.entry("nice", Set.of("-n", "--adjustment")),
            Map.entry("ionice", Set.of("-c", "-n", "-p", "--class", "--classdata")),
            Map.entry("timeout", Set.of("-s", "-k", "--signal", "--kill-after")),
            Map.entry("stdbuf", Set.of("-i", "-o", "-e")),
            Map.entry("xargs", Set.of("-I", "-i", "-n", "-P", "-d", "-E", "-L", "-s", "-a", "--delimiter",
                    "--max-args", "--max-procs", "--arg-file")),
            Map.entry("busybox", Set.of()),
            Map.entry("setsid", Set.of()),
            Map.entry("unbuffer", Set.of()),
            Map.entry("watch", Set.of("-n", "--interval", "-d")),
            Map.entry("chrt", Set.of()),
            Map.entry("taskset", Set.of()));
    private static final Pattern ASSIGNMENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*\\+?=.*", Pattern.DOTALL);
    private static final Pattern SHORT_RECURSIVE = Pattern.compile("-[a-zA-Z]*[rR][a-zA-Z]*");
    private static final Pattern FORK_BOMB = Pattern.compile(
            "([A-Za-z_:.][A-Za-z0-9_:.-]*)\\s*\\(\\s*\\)\\s*\\{[^}]*?(?<![A-Za-z0-9_:.-])\\1\\s*\\|\\s*&?\\s*\\1"
                    + "|function\\s+([A-Za-z_][A-Za-z0-9_-]*)[^{]*\\{[^}]*?\\b\\2\\s*\\|\\s*&?\\s*\\2\\b");
    private static final Path HOME_MARKER = Path.of("/__home__");

    private CommandPolicy() {
    }

    /** Decides whether {@code command} may run in {@code ctx}. */
    public static Decision decide(String command, Context ctx) {
        if (command == null || command.isBlank()) {
            return Decision.deny("bad-argument", "command is empty");
        }
        if (command.indexOf('\0') >= 0) {
            return Decision.deny("nul-byte", "command contains a NUL byte");
        }
        if (FORK_BOMB.matcher(command).find()) {
            return Decision.deny("fork-bomb", "a function that pipes into itself in the background is a fork bomb");
        }
        return decide(command, ctx, 0);
    }

    private static Decision decide(String command, Context ctx, int nesting) {
        if (nesting > MAX_NESTING) {
            return Decision.deny("unparseable", "commands nested through bash -c / eval more than "
                    + MAX_NESTING + " deep");
        }
        List<SimpleCommand> top;
        try {
            top = ShellParser.parse(command);
        } catch (ShellParser.ParseException e) {
            return Decision.deny("unparseable", "the command cannot be parsed: " + e.getMessage());
        }
        List<SimpleCommand> all = ShellParser.flatten(top);
        for (SimpleCommand c : all) {
            Decision d = checkRedirects(c);
            if (!d.allowed()) {
                return d;
            }
            Invocation inv = invocation(c.words());
            if (inv == null) {
                continue;
            }
            d = checkInvocation(inv, c, ctx, nesting);
            if (!d.allowed()) {
                return d;
            }
        }
        return checkPipelines(all);
    }

    /** The executable and arguments after assignments and wrappers; {@code null} for a bare assignment. */
    record Invocation(String exe, List<String> args) {
    }

    static Invocation invocation(List<String> words) {
        int k = 0;
        while (k < words.size() && ASSIGNMENT.matcher(words.get(k)).matches()) {
            k++;
        }
        while (k < words.size()) {
            String exe = exeName(words.get(k));
            Set<String> valued = WRAPPERS.get(exe);
            if (valued == null) {
                return new Invocation(exe, words.subList(k + 1, words.size()));
            }
            k++;
            // skip the wrapper's options (and their values), assignments (env) and the timeout's duration
            while (k < words.size()) {
                String w = words.get(k);
                if (w.equals("--")) {
                    k++;
                    break;
                }
                if (w.startsWith("-") && w.length() > 1) {
                    k += valued.contains(w) ? 2 : 1;
                } else if (exe.equals("env") && ASSIGNMENT.matcher(w).matches()) {
                    k++;
                } else {
                    break;
                }
            }
            if (exe.equals("timeout") && k < words.size()) {
                k++; // the duration
            }
            if (exe.equals("chrt") || exe.equals("taskset")) {
                while (k < words.size() && !words.get(k).isEmpty() && Character.isDigit(words.get(k).charAt(0))) {
                    k++;
                }
            }
        }
        return null;
    }

    static String exeName(String word) {
        String w = word;
        int slash = w.lastIndexOf('/');
        if (slash >= 0) {
            w = w.substring(slash + 1);
        }
        return w.toLowerCase(java.util.Locale.ROOT);
    }

    private static Decision checkInvocation(Invocation inv, SimpleCommand c, Context ctx, int nesting) {
        String exe = inv.exe();
        List<String> args = inv.args();
        if (PRIVILEGE.contains(exe)) {
            return Decision.deny("privilege-escalation", "'" + exe + "' is never allowed: tools run without privilege"
                    + " escalation");
        }
        if (POWER.contains(exe)
                || (exe.equals("init") || exe.equals("telinit")) && args.stream().anyMatch(a -> a.equals("0") || a.equals("6"))
                || exe.equals("systemctl") && args.stream().anyMatch(POWER_VERBS::contains)) {
            return Decision.deny("power-state", "shutting down or rebooting the machine is never allowed");
        }
        if (exe.equals("mkfs") || exe.startsWith("mkfs.") || FS_DESTROY.contains(exe)) {
            return Decision.deny("filesystem-format", "'" + exe + "' formats or repartitions disks; never allowed");
        }
        if (exe.equals("dd")) {
            for (String a : args) {
                if (a.startsWith("of=") && isDangerousDevice(a.substring(3))) {
                    return Decision.deny("block-device-write", "dd to a device (" + a + ") is never allowed");
                }
            }
        }
        if (DEVICE_WRITERS.contains(exe) && !exe.equals("cat")) {
            for (String a : args) {
                if (isDangerousDevice(a)) {
                    return Decision.deny("block-device-write", "'" + exe + "' onto the device " + a
                            + " is never allowed");
                }
            }
        }
        if (exe.equals("kill")) {
            List<String> targets = new ArrayList<>(args);
            if (targets.size() > 1 && (targets.get(0).equals("-s") || targets.get(0).equals("-n"))) {
                targets = targets.subList(2, targets.size());
            } else if (targets.size() > 1 && targets.get(0).startsWith("-")) {
                targets = targets.subList(1, targets.size()); // the signal
            }
            if (targets.contains("-1") || targets.contains("1")) {
                return Decision.deny("kill-all", "killing every process (kill -1) or init (kill 1) is never allowed");
            }
        }
        if (exe.equals("rm")) {
            Decision d = checkRecursive("rm", args, ctx, a -> a.equals("-r") || a.equals("-R")
                    || a.equals("--recursive") || SHORT_RECURSIVE.matcher(a).matches());
            if (!d.allowed()) {
                return d;
            }
        }
        if (exe.equals("chmod") || exe.equals("chown") || exe.equals("chgrp")) {
            Decision d = checkRecursive(exe, args.stream().filter(a -> !a.matches("[0-7]{3,4}|[ugoa]*[+=-].*")
                    || a.startsWith("-")).toList(), ctx, a -> a.equals("-R") || a.equals("--recursive")
                    || a.matches("-[a-zA-Z]*R[a-zA-Z]*"));
            if (!d.allowed()) {
                return d;
            }
        }
        if (exe.equals("find") && args.stream().anyMatch(a -> a.equals("-delete") || a.equals("-exec")
                || a.equals("-execdir"))) {
            boolean deletes = args.contains("-delete") || execRuns(args, "rm");
            if (deletes) {
                for (String a : args) {
                    if (a.startsWith("-") || a.equals("(") || a.equals("!")) {
                        break;
                    }
                    // find deletes only what matches, so the workspace itself is a fine start; / and homes are not
                    if (isProtectedTarget(a, new Context(null, ctx.cwd()))) {
                        return Decision.deny("recursive-delete-of-protected-path", "find … -delete starting at '"
                                + a + "' would delete from the file-system root, a system directory or a home");
                    }
                }
            }
        }
        if (SHELLS.contains(exe) || exe.equals("eval") || exe.equals("source") || exe.equals(".")) {
            if (ShellParser.flatten(c.nested()).stream().map(n -> invocation(n.words()))
                    .anyMatch(n -> n != null && DOWNLOADERS.contains(n.exe()))) {
                return Decision.deny("remote-script-execution",
                        "running a downloaded script through a shell is never allowed; download it, read it, then run it");
            }
            String inner = innerCommand(exe, args);
            if (inner != null) {
                Decision d = decide(inner, ctx, nesting + 1);
                if (!d.allowed()) {
                    return d;
                }
            }
        }
        return Decision.ALLOW;
    }

    private static boolean execRuns(List<String> args, String exe) {
        for (int k = 0; k + 1 < args.size(); k++) {
            if ((args.get(k).equals("-exec") || args.get(k).equals("-execdir")) && exeName(args.get(k + 1)).equals(exe)) {
                return true;
            }
        }
        return false;
    }

    /** The command string of {@code bash -c STRING} or {@code eval ARGS}; {@code null} when there is none. */
    private static String innerCommand(String exe, List<String> args) {
        if (exe.equals("eval")) {
            return args.isEmpty() ? null : String.join(" ", args);
        }
        if (!SHELLS.contains(exe)) {
            return null;
        }
        for (int k = 0; k < args.size(); k++) {
            String a = args.get(k);
            if (a.startsWith("-") && !a.startsWith("--") && a.indexOf('c') > 0) {
                for (int j = k + 1; j < args.size(); j++) {
                    if (!args.get(j).startsWith("-")) {
                        return args.get(j);
                    }
                }
                return null;
            }
            if (!a.startsWith("-") && !a.startsWith("+")) {
                return null; // a script file: its contents are not ours to see
            }
        }
        return null;
    }

    private interface FlagTest {
        boolean recursive(String arg);
    }

    private static Decision checkRecursive(String exe, List<String> args, Context ctx, FlagTest flag) {
        boolean recursive = false;
        boolean endOfOptions = false;
        List<String> targets = new ArrayList<>();
        for (String a : args) {
            if (!endOfOptions && a.equals("--")) {
                endOfOptions = true;
            } else if (!endOfOptions && a.equals("--no-preserve-root")) {
                return Decision.deny("recursive-delete-of-protected-path",
                        exe + " --no-preserve-root is never allowed");
            } else if (!endOfOptions && a.startsWith("-") && a.length() > 1) {
                recursive |= flag.recursive(a);
            } else {
                targets.add(a);
            }
        }
        if (!recursive) {
            return Decision.ALLOW;
        }
        for (String t : targets) {
            if (isProtectedTarget(t, ctx)) {
                String rule = exe.equals("rm") ? "recursive-delete-of-protected-path" : "recursive-change-of-protected-path";
                return Decision.deny(rule, exe + " -r on '" + t
                        + "' would hit the file-system root, a top-level system directory, a home directory or the"
                        + " workspace root");
            }
        }
        return Decision.ALLOW;
    }

    /**
     * {@code true} for targets that resolve (lexically, from the cwd) to {@code /}, a top-level directory such as
     * {@code /usr}, a home directory ({@code ~}, {@code $HOME}), or the workspace root or one of its ancestors; a
     * trailing glob ({@code dir/*}) counts as the directory itself.
     */
    static boolean isProtectedTarget(String target, Context ctx) {
        String t = target;
        if (t.isEmpty()) {
            return false;
        }
        Path base;
        if (t.equals("~") || t.startsWith("~/") || t.matches("~[A-Za-z0-9_.-]+(/.*)?")) {
            base = HOME_MARKER;
            int slash = t.indexOf('/');
            t = slash < 0 ? "" : t.substring(slash + 1);
        } else if (t.equals("$HOME") || t.startsWith("$HOME/") || t.equals("${HOME}") || t.startsWith("${HOME}/")) {
            base = HOME_MARKER;
            int slash = t.indexOf('/');
            t = slash < 0 ? "" : t.substring(slash + 1);
        } else {
            base = ctx.cwd();
        }
        // a trailing "*" / ".*" / "{,.}*" component means "everything in the directory": judge the directory
        String[] parts = t.split("/");
        StringBuilder kept = new StringBuilder();
        for (int k = 0; k < parts.length; k++) {
            String p = parts[k];
            boolean last = k == parts.length - 1;
            if (last && (p.equals("*") || p.equals(".*") || p.equals("*.*") || p.matches("\\{[^}]*\\}\\*?"))) {
                break;
            }
            if (k > 0) {
                kept.append('/');
            }
            kept.append(p);
        }
        String rel = kept.toString();
        if (t.startsWith("/") && rel.isEmpty()) {
            rel = "/";
        }
        Path p;
        try {
            p = rel.isEmpty() ? base : base.resolve(rel).normalize();
        } catch (java.nio.file.InvalidPathException e) {
            return false;
        }
        if (p.getNameCount() <= 1) {
            return true; // "/" or a top-level directory (/usr, /etc, /home, the home marker)
        }
        Path root = ctx.workspaceRoot();
        return root != null && root.startsWith(p);
    }

    private static boolean isDangerousDevice(String path) {
        if (!path.startsWith("/dev/")) {
            return false;
        }
        String norm = Path.of(path).normalize().toString();
        return !SAFE_DEVICES.contains(norm) && !norm.startsWith("/dev/fd/") && !norm.startsWith("/dev/pts/");
    }

    private static Decision checkRedirects(SimpleCommand c) {
        for (Redirect r : c.redirects()) {
            if (r.writes() && isDangerousDevice(r.target())) {
                return Decision.deny("block-device-write", "redirecting output to the device " + r.target()
                        + " is never allowed (/dev/null and friends are fine)");
            }
        }
        return Decision.ALLOW;
    }

    /** {@code curl … | sh}: a downloader earlier in a pipeline than a shell. */
    private static Decision checkPipelines(List<SimpleCommand> all) {
        for (SimpleCommand down : all) {
            Invocation d = invocation(down.words());
            if (d == null || !DOWNLOADERS.contains(d.exe())) {
                continue;
            }
            for (SimpleCommand later : all) {
                if (later.pipeline() != down.pipeline() || later.stage() <= down.stage()) {
                    continue;
                }
                Invocation l = invocation(later.words());
                if (l != null && (SHELLS.contains(l.exe()) || l.exe().equals("source") || l.exe().equals("."))) {
                    return Decision.deny("remote-script-execution", "piping a download ('" + d.exe()
                            + "') into a shell ('" + l.exe()
                            + "') is never allowed; download it, read it, then run it");
                }
            }
        }
        return Decision.ALLOW;
    }

    /**
     * The slow-command heuristic (s13, word-bounded): {@code true} when a simple command of {@code command} starts
     * with one of {@code patterns} (word sequences, e.g. {@code "npm run build"}).
     */
    public static boolean isSlow(String command, List<List<String>> patterns) {
        List<SimpleCommand> all;
        try {
            all = ShellParser.flatten(ShellParser.parse(command));
        } catch (ShellParser.ParseException e) {
            return false;
        }
        for (SimpleCommand c : all) {
            Invocation inv = invocation(c.words());
            if (inv == null) {
                continue;
            }
            for (List<String> p : patterns) {
                if (p.isEmpty() || !exeName(p.get(0)).equals(inv.exe()) || inv.args().size() < p.size() - 1) {
                    continue;
                }
                boolean match = true;
                for (int k = 1; k < p.size() && match; k++) {
                    match = p.get(k).equals(inv.args().get(k - 1));
                }
                if (match) {
                    return true;
                }
            }
        }
        return false;
    }
}
