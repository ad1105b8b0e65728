package dev.cohort.core.shell;

import dev.cohort.core.shell.ShellParser.Redirect;
import dev.cohort.core.shell.ShellParser.SimpleCommand;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The one command rule set (CONVENTIONS #7: a pure function on data): {@code classify(command, workspace) →
 * CommandVerdict{ALLOW | ASK | DENY, rule, reason}}. The engine's permission gate adds the team's mode on top (a hard
 * deny is never bypassable, an ask becomes an approval); the tool runner refuses every hard deny whatever the engine
 * said, and runs the rest. Both call this class, so they cannot disagree.
 *
 * <p>Decisions are made on the command as tokenised by {@link ShellParser} (never on substrings): every simple
 * command, those inside {@code $(…)}, backticks, {@code <(…)}, subshells, groups, {@code bash -c}/{@code eval}
 * strings and {@code find -exec} included, reduced to its executable (base name, lower case, after variable
 * assignments and wrappers such as {@code env}, {@code nohup}, {@code timeout}, {@code xargs}) and arguments. The
 * command lines a program runs through a shell and shows in its arguments (sed's {@code e cmd}, awk's
 * {@code system("cmd")}, {@code vim -c '!cmd'}, {@code git -c core.pager=cmd}, {@code GIT_PAGER=cmd}, {@code env -S}
 * …, see {@link EmbeddedCommands}) are judged as nested command lines too. Paths are judged lexically (no file
 * system access) against the {@link Workspace} facts, following {@code cd}.
 *
 * <p>Read-only is an allowlist ({@link ReadOnlyCommands}, {@link GitReads}, {@link SedScript}): a command line is
 * read-only when every command in it is a listed program given only listed options and forms (none can run a
 * program, write a file or change state), behind harmless assignments and wrappers, with no writing redirection and
 * no arithmetic evaluation; an unknown command, option or computed word is not read-only.
 *
 * <p>Order: blank / NUL / fork bomb → parse → per simple command, in order: hard denies, then asks (the first one
 * found is the verdict unless a later command is hard-denied) → downloads piped into a shell → read-only or ordinary.
 * The rules and what they cover are listed in {@link CommandRule}. The rule data below is deliberately not
 * configurable: a setting per service would let the engine and the tool runner disagree again.
 */
public final class CommandRules {

    /**
     * What the rules know of where a command runs.
     *
     * @param root the containment root (the workspace, or the worktree the call runs in) as an absolute path, or
     *             {@code null} when the caller does not know it (the engine: the tool runner owns the paths); then an
     *             absolute path is never taken to be inside the workspace
     * @param cwd  the working directory relative to {@code root} ({@code ""} = the root); never climbs out of it
     */
    public record Workspace(Path root, Path cwd) {
        public Workspace {
            if (root != null && !root.isAbsolute()) {
                throw new IllegalArgumentException("the workspace root must be absolute: " + root);
            }
            cwd = cwd == null ? Path.of("") : cwd.normalize();
            if (cwd.isAbsolute() || cwd.startsWith("..")) {
                throw new IllegalArgumentException("the cwd must be relative to the workspace root and inside it: "
                        + cwd);
            }
        }

        /** A workspace whose real location is known (the tool runner): {@code cwd} absolute, inside {@code root}. */
        public static Workspace of(Path root, Path cwd) {
            Path r = root.toAbsolutePath().normalize();
            Path c = cwd == null ? r : r.resolve(cwd).normalize();
            if (!c.startsWith(r)) {
                throw new IllegalArgumentException("the cwd " + c + " is not inside the workspace root " + r);
            }
            return new Workspace(r, r.relativize(c));
        }

        /**
         * A workspace whose real location is unknown (the engine), with the host-chosen cwd: {@code null} or empty
         * for the root, a workspace-relative directory, or {@code wt:<name>[/<dir>]} for a worktree (whose root is
         * then the worktree).
         */
        public static Workspace relative(String hostCwd) {
            String c = hostCwd == null ? "" : hostCwd.strip();
            if (c.startsWith("wt:")) {
                int slash = c.indexOf('/');
                c = slash < 0 ? "" : c.substring(slash + 1);
            }
            return new Workspace(null, Path.of(c));
        }
    }

    /**
     * A simple command reduced to what runs: the executable (base name, lower case) and its arguments.
     *
     * @param exe  {@code rm} for {@code /usr/bin/RM}
     * @param args the words after it
     */
    public record Invocation(String exe, List<String> args) {
    }

    /** Nesting bound for {@code bash -c} / {@code eval} strings inside each other; deeper is refused. */
    static final int MAX_NESTING = 6;

    private static final Set<String> PRIVILEGE = Set.of("sudo", "su", "doas", "pkexec", "runuser", "sudoedit");
    private static final Set<String> POWER = Set.of("shutdown", "reboot", "halt", "poweroff");
    private static final Set<String> POWER_VERBS = Set.of("poweroff", "reboot", "halt", "kexec", "suspend",
            "hibernate", "emergency", "rescue");
    private static final Set<String> FS_DESTROY = Set.of("mkfs", "mke2fs", "mkswap", "wipefs", "mkdosfs", "sfdisk",
            "fdisk", "parted", "cfdisk", "sgdisk");
    private static final Set<String> SHELLS = Set.of("sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish",
            "csh", "tcsh");
    /** Builtins and tools that run a string or a file as shell ({@code watch 'cmd'} runs {@code sh -c 'cmd'}). */
    private static final Set<String> SOURCING = Set.of("eval", "source", ".", "watch");
    private static final Set<String> DOWNLOADERS = Set.of("curl", "wget", "fetch", "aria2c", "http", "https");
    private static final Set<String> SAFE_DEVICES = Set.of("/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr",
            "/dev/stdin", "/dev/tty", "/dev/full", "/dev/random", "/dev/urandom");
    /** Executables that write onto any path argument (a device among them is a device write). */
    private static final Set<String> DEVICE_WRITERS = Set.of("tee", "cp", "mv", "install", "shred", "pv");
    private static final Set<String> DESTRUCTIVE = Set.of("rm", "rmdir", "shred", "unlink", "truncate", "dd", "srm",
            "kill", "pkill", "killall");
    /** git's options before the subcommand that take a value ({@code git -C dir push}). */
    private static final Set<String> GIT_VALUED = Set.of("-C", "-c", "--git-dir", "--work-tree", "--namespace");
    /**
     * Wrappers that run their arguments as a command, with the options that take a value (a value in the next word;
     * options whose value can only be attached, such as xargs' {@code -i[R]}, are not listed).
     */
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
            Map.entry("stdbuf", Set.of("-i", "-o", "-e", "--input", "--output", "--error")),
            Map.entry("xargs", Set.of("-I", "-n", "-P", "-d", "-E", "-L", "-s", "-a", "--delimiter",
                    "--max-args", "--max-procs", "--arg-file", "--max-chars", "--process-slot-var")),
            Map.entry("busybox", Set.of()),
            Map.entry("setsid", Set.of()),
            Map.entry("unbuffer", Set.of()),
            Map.entry("chrt", Set.of("-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline")),
            Map.entry("taskset", Set.of()));
    private static final Pattern ASSIGNMENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*\\+?=.*", Pattern.DOTALL);
    private static final Pattern RM_RECURSIVE = Pattern.compile("-[a-zA-Z]*[rR][a-zA-Z]*");
    private static final Pattern CHMOD_RECURSIVE = Pattern.compile("-[a-zA-Z]*R[a-zA-Z]*");
    private static final Pattern CHMOD_MODE = Pattern.compile(
            "[0-7]{1,4}|[ugoa]*[-+=][rwxXstugo]*(,[ugoa]*[-+=][rwxXstugo]*)*");
    private static final Pattern OCTAL_MODE = Pattern.compile("[0-7]{3,4}");
    private static final Pattern DRIVE_LETTER = Pattern.compile("[A-Za-z]:([/\\\\].*)?");
    private static final Pattern USER_HOME = Pattern.compile("~[A-Za-z0-9_.-]+(/.*)?");
    private static final Pattern BRACE_GLOB = Pattern.compile("\\{[^}]*,[^}]*\\}\\*?");
    private static final Pattern PUSH_FORCE_OR_DELETE = Pattern.compile("-[a-zA-Z]*[fd][a-zA-Z]*");
    private static final Pattern BRANCH_FORCE_DELETE = Pattern.compile("-[a-zA-Z]*D[a-zA-Z]*");
    private static final Pattern FORK_BOMB = Pattern.compile(
            "([A-Za-z_:.][A-Za-z0-9_:.-]*)\\s*\\(\\s*\\)\\s*\\{[^}]*?(?<![A-Za-z0-9_:.-])\\1\\s*\\|\\s*&?\\s*\\1"
                    + "|function\\s+([A-Za-z_][A-Za-z0-9_-]*)[^{]*\\{[^}]*?\\b\\2\\s*\\|\\s*&?\\s*\\2\\b");

    private CommandRules() {
    }

    /** The verdict on {@code command} run in {@code workspace}. */
    public static CommandVerdict classify(String command, Workspace workspace) {
        Objects.requireNonNull(workspace, "workspace");
        if (command == null || command.isBlank()) {
            return new CommandVerdict(CommandRule.EMPTY_COMMAND, "the command is empty");
        }
        if (command.indexOf('\0') >= 0) {
            return new CommandVerdict(CommandRule.NUL_BYTE, "the command contains a NUL byte");
        }
        if (FORK_BOMB.matcher(command).find()) {
            return new CommandVerdict(CommandRule.FORK_BOMB,
                    "a function that pipes into itself in the background is a fork bomb; it is never run");
        }
        Scan scan = new Scan(workspace);
        CommandVerdict deny = scan.line(command, 0);
        if (deny != null) {
            return deny;
        }
        if (!scan.readOnly && mentionsProtectedConfig(command)) {
            return new CommandVerdict(CommandRule.PROTECTED_CONFIG, "a command that may change the workspace's "
                    + PROTECTED_DIR + "/ directory (its settings and hooks)");
        }
        if (scan.ask != null) {
            return scan.ask;
        }
        return scan.readOnly ? new CommandVerdict(CommandRule.READ_ONLY, "every command only reads")
                : new CommandVerdict(CommandRule.ORDINARY, "no rule objects to this command");
    }

    /** The workspace directory of settings and hooks, which the model may change only with approval. */
    public static final String PROTECTED_DIR = ".cohort";

    /**
     * {@code true} when the command mentions {@code .cohort} anywhere (quotes and backslashes removed first, so
     * {@code .coh''ort} counts): the simplest robust test, judged together with "the command is not read-only".
     */
    static boolean mentionsProtectedConfig(String command) {
        return command.replace("'", "").replace("\"", "").replace("\\", "").contains(PROTECTED_DIR);
    }

    /**
     * {@code true} when a file tool's {@code path} (relative to the cwd, or absolute) lies in a {@code .cohort}
     * directory: one of its segments, after normalisation, is {@code .cohort}.
     */
    public static boolean isProtectedConfig(String path) {
        if (path == null || path.isBlank()) {
            return false;
        }
        Path p;
        try {
            p = Path.of(path.replace('\\', '/')).normalize();
        } catch (InvalidPathException e) {
            return path.contains(PROTECTED_DIR);
        }
        for (Path segment : p) {
            if (segment.toString().equals(PROTECTED_DIR)) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code true} when a file tool's {@code path} (relative to the cwd) is outside the workspace: absolute (unless
     * inside a known root), a home path, a variable, a drive letter, or a relative path that climbs out with
     * {@code ..}.
     */
    public static boolean outsideWorkspace(String path, Workspace workspace) {
        if (path == null || path.isBlank()) {
            return false;
        }
        if (DRIVE_LETTER.matcher(path).matches()) {
            return true;
        }
        return outside(resolve(path.replace('\\', '/'), new Location(Base.WORKSPACE, workspace.cwd()), workspace));
    }

    /**
     * What {@code words} run: assignments and wrappers ({@code env -i X=1 nohup timeout 5 rm}) skipped; empty for a
     * bare assignment or a wrapper with nothing to run.
     */
    public static Optional<Invocation> invocation(List<String> words) {
        return Optional.ofNullable(unwrap(words, Set.of()).invocation());
    }

    /**
     * A simple command's words reduced to what runs, with what stands in front of it.
     *
     * @param invocation    what runs; {@code null} for a bare assignment or a wrapper with nothing to run
     * @param exeIndex      the index in the words of the program of {@code invocation} (-1 without one)
     * @param frontReadOnly every assignment and wrapper in front of the program is harmless and literal
     * @param fedByXargs    {@code xargs} is among the wrappers: the program gets more arguments from its input
     * @param xargsAlone    {@code xargs} is the last wrapper and nothing follows it (it runs {@code echo})
     * @param embedded      the command lines the front runs through a shell: {@code env -S} strings, the value of a
     *                      variable such as {@code GIT_PAGER}
     */
    record Unwrapped(Invocation invocation, int exeIndex, boolean frontReadOnly, boolean fedByXargs,
            boolean xargsAlone, List<String> embedded) {
    }

    /** {@link #invocation} with what the read-only rule needs to know; {@code expanded} as in {@link SimpleCommand}. */
    static Unwrapped unwrap(List<String> words, Set<Integer> expanded) {
        boolean safe = true;
        List<String> embedded = new ArrayList<>();
        int k = 0;
        while (k < words.size() && ASSIGNMENT.matcher(words.get(k)).matches()) {
            safe &= ReadOnlyCommands.safeAssignment(words.get(k));
            embedded.addAll(EmbeddedCommands.ofAssignment(words.get(k)));
            k++;
        }
        boolean xargs = false;
        String last = null;
        while (k < words.size()) {
            String exe = exeName(words.get(k));
            Set<String> valued = WRAPPERS.get(exe);
            if (valued == null) {
                return new Unwrapped(new Invocation(exe, words.subList(k + 1, words.size())), k, safe, xargs, false,
                        embedded);
            }
            safe &= !expanded.contains(k) && ReadOnlyCommands.systemProgram(words.get(k));
            int wrapperAt = k;
            k++;
            int from = k;
            // skip the wrapper's options (and their values), assignments (env) and the timeout's duration
            while (k < words.size()) {
                String w = words.get(k);
                if (w.equals("--")) {
                    k++;
                    break;
                }
                if (exe.equals("command") && (w.equals("-v") || w.equals("-V"))) {
                    // 'command -v x' looks x up, it does not run it
                    safe &= ReadOnlyCommands.safeWrapper(exe, words.subList(from, k),
                            ReadOnlyCommands.shift(expanded, from));
                    return new Unwrapped(new Invocation("command", words.subList(k, words.size())), wrapperAt, safe,
                            xargs, false, embedded);
                }
                if (exe.equals("env") && w.startsWith("-") && !w.startsWith("--") && splitsAt(w) > 0) {
                    // env -S STRING / -iS STRING / -SSTRING: the string is split into more words, a command among them
                    int at = splitsAt(w);
                    String split = at + 1 < w.length() ? w.substring(at + 1) : k + 1 < words.size() ? words.get(k + 1)
                            : "";
                    int next = at + 1 < w.length() ? k + 1 : k + 2;
                    embedded.add(splitCommand(split, words.subList(Math.min(next, words.size()), words.size())));
                    k = next;
                } else if (exe.equals("env") && w.startsWith("--split-string=")) {
                    embedded.add(splitCommand(w.substring("--split-string=".length()),
                            words.subList(k + 1, words.size())));
                    k++;
                } else if (exe.equals("env") && w.equals("--split-string")) {
                    embedded.add(splitCommand(k + 1 < words.size() ? words.get(k + 1) : "",
                            words.subList(Math.min(k + 2, words.size()), words.size())));
                    k += 2;
                } else if (w.startsWith("-") && w.length() > 1) {
                    k += valued.contains(w) ? 2 : 1;
                } else if (exe.equals("env") && ASSIGNMENT.matcher(w).matches()) {
                    embedded.addAll(EmbeddedCommands.ofAssignment(w));
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
            k = Math.min(k, words.size());
            Set<Integer> own = new HashSet<>();
            for (int e : ReadOnlyCommands.shift(expanded, from)) {
                if (e < k - from) {
                    own.add(e);
                }
            }
            safe &= ReadOnlyCommands.safeWrapper(exe, words.subList(from, k), own);
            xargs |= exe.equals("xargs");
            last = exe;
        }
        return new Unwrapped(null, -1, safe, xargs, "xargs".equals(last), embedded);
    }

    /** The index of the {@code S} in an env short-option cluster when it is env's -S (not a -u/-C value); -1. */
    private static int splitsAt(String cluster) {
        for (int j = 1; j < cluster.length(); j++) {
            char c = cluster.charAt(j);
            if (c == 'S') {
                return j;
            }
            if (c == 'u' || c == 'C') {
                return -1; // the rest is that option's value
            }
        }
        return -1;
    }

    /** The command line {@code env -S split rest…} amounts to, for judging it as a nested command line. */
    private static String splitCommand(String split, List<String> rest) {
        StringBuilder b = new StringBuilder("env ").append(split);
        for (String w : rest) {
            b.append(" '").append(w.replace("'", "'\\''")).append('\'');
        }
        return b.toString();
    }

    /**
     * {@code true} when {@code words} (a command's words, {@code expanded} and {@code splits} as in
     * {@link SimpleCommand}) only read: harmless assignments and wrappers in front of a program and arguments on the
     * allowlist.
     */
    static boolean readOnlyWords(List<String> words, Set<Integer> expanded, Set<Integer> splits) {
        return readOnlyWords(words, expanded, splits, unwrap(words, expanded));
    }

    private static boolean readOnlyWords(List<String> words, Set<Integer> expanded, Set<Integer> splits,
            Unwrapped u) {
        if (!u.frontReadOnly() || !u.embedded().isEmpty()) {
            return false;
        }
        if (u.invocation() == null) {
            // a bare assignment or 'env' prints or sets nothing outside; 'xargs' alone runs echo, but a wrapper
            // after xargs runs whatever the input names
            return !u.fedByXargs() || u.xargsAlone();
        }
        int argsFrom = words.size() - u.invocation().args().size();
        return !expanded.contains(u.exeIndex()) && ReadOnlyCommands.readOnly(words.get(u.exeIndex()),
                u.invocation().args(), ReadOnlyCommands.shift(expanded, argsFrom),
                ReadOnlyCommands.shift(splits, argsFrom), u.fedByXargs());
    }

    /** The executable's base name in lower case ({@code /usr/bin/RM} → {@code rm}). */
    public static String exeName(String word) {
        int slash = word.lastIndexOf('/');
        return (slash >= 0 ? word.substring(slash + 1) : word).toLowerCase(Locale.ROOT);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // paths, judged lexically

    /** Where a location is anchored: the workspace root, the home directory, or the file-system root. */
    private enum Base {
        WORKSPACE, HOME, ABSOLUTE
    }

    /**
     * A path, normalised: relative to the workspace root (it may climb out: {@code ../x}) or to the home directory,
     * or absolute (never one inside a known workspace root: that is a workspace location).
     */
    private record Location(Base base, Path path) {
        boolean isBaseItself() {
            return path.toString().isEmpty();
        }

        boolean climbsOut() {
            return path.startsWith("..");
        }
    }

    /** Where {@code raw} points from {@code cwd}; {@code null} when it starts with a variable other than HOME. */
    private static Location resolve(String raw, Location cwd, Workspace ws) {
        if (raw.isEmpty()) {
            return null;
        }
        Base base;
        String rest;
        if (raw.equals("~") || raw.startsWith("~/") || USER_HOME.matcher(raw).matches()) {
            base = Base.HOME;
            int slash = raw.indexOf('/');
            rest = slash < 0 ? "" : raw.substring(slash + 1);
        } else if (raw.equals("$HOME") || raw.startsWith("$HOME/") || raw.equals("${HOME}")
                || raw.startsWith("${HOME}/")) {
            base = Base.HOME;
            int slash = raw.indexOf('/');
            rest = slash < 0 ? "" : raw.substring(slash + 1);
        } else if (raw.equals("$PWD") || raw.startsWith("$PWD/") || raw.equals("${PWD}") || raw.startsWith("${PWD}/")) {
            base = null;
            int slash = raw.indexOf('/');
            rest = slash < 0 ? "" : raw.substring(slash + 1);
        } else if (raw.startsWith("$")) {
            return null;
        } else if (raw.startsWith("/")) {
            base = Base.ABSOLUTE;
            rest = raw;
        } else {
            base = null;
            rest = raw;
        }
        rest = withoutTrailingGlob(rest);
        Path p;
        try {
            if (base == null) {
                base = cwd.base();
                p = cwd.path().resolve(rest).normalize();
            } else {
                p = (base == Base.ABSOLUTE ? Path.of(rest.isEmpty() ? "/" : rest) : Path.of(rest)).normalize();
            }
        } catch (InvalidPathException e) {
            return null;
        }
        if (base == Base.ABSOLUTE && ws.root() != null && p.startsWith(ws.root())) {
            return new Location(Base.WORKSPACE, ws.root().relativize(p));
        }
        return new Location(base, p);
    }

    /** A trailing {@code *}, {@code .*}, {@code *.*} or {@code {,.}*} component means the whole directory. */
    private static String withoutTrailingGlob(String path) {
        String[] parts = path.split("/");
        if (parts.length == 0) {
            return path; // "/" or "//"
        }
        String last = parts[parts.length - 1];
        if (!(last.equals("*") || last.equals(".*") || last.equals("*.*") || BRACE_GLOB.matcher(last).matches())) {
            return path;
        }
        String kept = String.join("/", Arrays.copyOf(parts, parts.length - 1));
        return path.startsWith("/") && kept.isEmpty() ? "/" : kept;
    }

    /**
     * {@code true} for {@code /}, a top-level directory, a home ({@code ~}, {@code /home/x}), a relative path that
     * climbs out of the workspace, an absolute ancestor of a known workspace root, and — when {@code rootProtected}
     * — the workspace root itself.
     */
    private static boolean isProtected(Location l, Workspace ws, boolean rootProtected) {
        if (l == null) {
            return false;
        }
        return switch (l.base()) {
            case WORKSPACE -> l.climbsOut() || rootProtected && l.isBaseItself();
            case HOME -> l.isBaseItself() || l.climbsOut();
            case ABSOLUTE -> l.path().getNameCount() <= 1
                    || l.path().getNameCount() == 2 && (l.path().startsWith("/home") || l.path().startsWith("/Users"))
                    || ws.root() != null && ws.root().startsWith(l.path());
        };
    }

    /** {@code true} when a write to {@code l} lands outside the workspace ({@code null}: unknown, so outside). */
    private static boolean outside(Location l) {
        return l == null || l.base() != Base.WORKSPACE || l.climbsOut();
    }

    private static boolean isSafeDevice(String path) {
        if (!path.startsWith("/dev/")) {
            return false;
        }
        String norm = Path.of(path).normalize().toString();
        return SAFE_DEVICES.contains(norm) || norm.startsWith("/dev/fd/") || norm.startsWith("/dev/pts/");
    }

    private static boolean isDangerousDevice(String path) {
        if (!path.startsWith("/dev/")) {
            return false;
        }
        return !isSafeDevice(path);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // the scan

    /** One classification: walks the commands in order, keeps the first ask, the read-only flag and the cwd. */
    private static final class Scan {
        private final Workspace ws;
        /** The cwd the command starts in. */
        private final Location start;
        /** The cwd after the {@code cd}s seen so far. */
        private Location cwd;
        private CommandVerdict ask;
        private boolean readOnly = true;

        Scan(Workspace ws) {
            this.ws = ws;
            this.start = new Location(Base.WORKSPACE, ws.cwd());
            this.cwd = start;
        }

        private Location at(String target) {
            return resolve(target, cwd, ws);
        }

        /**
         * A hard deny judges a target from the cwd after {@code cd} and from the starting cwd: a {@code cd} that
         * fails ({@code cd build; rm -rf *}) leaves the command where it started.
         */
        private boolean isProtectedFromEither(String target, boolean rootProtected) {
            return isProtected(at(target), ws, rootProtected)
                    || isProtected(resolve(target, start, ws), ws, rootProtected);
        }

        private void ask(CommandRule rule, String reason) {
            if (ask == null) {
                ask = new CommandVerdict(rule, reason);
            }
        }

        private static CommandVerdict deny(CommandRule rule, String reason) {
            return new CommandVerdict(rule, reason);
        }

        /** Scans one command line; returns its hard deny, if any. */
        CommandVerdict line(String command, int nesting) {
            if (nesting > MAX_NESTING) {
                return deny(CommandRule.UNPARSEABLE, "commands are nested through bash -c / eval more than "
                        + MAX_NESTING + " deep");
            }
            List<SimpleCommand> all;
            try {
                all = ShellParser.flatten(ShellParser.parse(command));
            } catch (ShellParser.ParseException e) {
                return deny(CommandRule.UNPARSEABLE, "the command is not valid shell (" + e.getMessage()
                        + "), so what it would do is unknown");
            }
            for (SimpleCommand c : all) {
                CommandVerdict d = redirects(c);
                if (d != null) {
                    return d;
                }
                Unwrapped u = unwrap(c.words(), c.expanded());
                d = embedded(u.embedded(), nesting);
                if (d != null) {
                    return d;
                }
                if (u.invocation() != null) {
                    d = check(u.invocation(), c, nesting);
                    if (d != null) {
                        return d;
                    }
                }
                if (c.evaluates() || !readOnlyWords(c.words(), c.expanded(), c.splits(), u)) {
                    readOnly = false;
                }
            }
            return pipelines(all);
        }

        /** Judges command lines a command runs through a shell as nested command lines; none is read-only. */
        private CommandVerdict embedded(List<String> commands, int nesting) {
            for (String e : commands) {
                readOnly = false;
                CommandVerdict d = line(e, nesting + 1);
                if (d != null) {
                    return d;
                }
            }
            return null;
        }

        private CommandVerdict redirects(SimpleCommand c) {
            for (Redirect r : c.redirects()) {
                if (!r.writes()) {
                    continue;
                }
                String t = r.target();
                if (isDangerousDevice(t)) {
                    return deny(CommandRule.BLOCK_DEVICE_WRITE, "redirecting output to the device " + t
                            + " is never allowed (/dev/null and friends are fine)");
                }
                if (isSafeDevice(t)) {
                    continue;
                }
                readOnly = false;
                if (outside(at(t))) {
                    ask(CommandRule.WRITE_OUTSIDE_WORKSPACE, "writes outside the workspace (" + t + ")");
                }
            }
            return null;
        }

        private CommandVerdict check(Invocation inv, SimpleCommand c, int nesting) {
            String exe = inv.exe();
            List<String> args = inv.args();
            if (PRIVILEGE.contains(exe)) {
                return deny(CommandRule.PRIVILEGE_ESCALATION, "'" + exe
                        + "' is never allowed: tools run without privilege escalation");
            }
            if (POWER.contains(exe)
                    || (exe.equals("init") || exe.equals("telinit")) && (args.contains("0") || args.contains("6"))
                    || exe.equals("systemctl") && args.stream().anyMatch(POWER_VERBS::contains)) {
                return deny(CommandRule.POWER_STATE, "shutting down or rebooting the machine is never allowed");
            }
            if (exe.startsWith("mkfs.") || FS_DESTROY.contains(exe)) {
                return deny(CommandRule.FILESYSTEM_FORMAT, "'" + exe
                        + "' formats or repartitions disks; it is never allowed");
            }
            CommandVerdict d = devices(exe, args);
            if (d == null) {
                d = kill(exe, args);
            }
            if (d == null && exe.equals("rm")) {
                d = recursive("rm", args, RM_RECURSIVE, CommandRule.RECURSIVE_DELETE_OF_PROTECTED_PATH);
            }
            if (d == null && (exe.equals("chmod") || exe.equals("chown") || exe.equals("chgrp"))) {
                d = permissions(exe, args);
            }
            if (d == null && exe.equals("rsync") && args.stream().anyMatch(a -> a.startsWith("--delete"))) {
                List<String> to = writeTargets(exe, args);
                if (!to.isEmpty() && isProtectedFromEither(to.get(0), true)) {
                    d = deny(CommandRule.RECURSIVE_DELETE_OF_PROTECTED_PATH, "rsync --delete onto '" + to.get(0)
                            + "' would delete from the file-system root, a top-level directory, a home, the workspace"
                            + " root or a path outside the workspace");
                }
            }
            if (d == null && exe.equals("find")) {
                d = find(args, c, nesting);
            }
            if (d == null && (SHELLS.contains(exe) || SOURCING.contains(exe))) {
                d = shell(exe, args, c, nesting);
            }
            if (d == null) {
                d = embedded(EmbeddedCommands.of(exe, args), nesting);
            }
            if (d != null) {
                return d;
            }
            if (DESTRUCTIVE.contains(exe)) {
                ask(CommandRule.DESTRUCTIVE_COMMAND, "destructive command '" + exe + "'");
            }
            if (exe.equals("git")) {
                git(args);
            }
            for (String t : writeTargets(exe, args)) {
                if (!isSafeDevice(t) && outside(at(t))) {
                    ask(CommandRule.WRITE_OUTSIDE_WORKSPACE, "'" + exe + "' writes outside the workspace (" + t + ")");
                }
            }
            if (exe.equals("cd") || exe.equals("pushd")) {
                cd(args);
            }
            return null;
        }

        private CommandVerdict devices(String exe, List<String> args) {
            if (exe.equals("dd")) {
                for (String a : args) {
                    if (a.startsWith("of=") && isDangerousDevice(a.substring(3))) {
                        return deny(CommandRule.BLOCK_DEVICE_WRITE, "dd onto a device (" + a + ") is never allowed");
                    }
                }
            }
            if (DEVICE_WRITERS.contains(exe)) {
                for (String a : args) {
                    if (isDangerousDevice(a)) {
                        return deny(CommandRule.BLOCK_DEVICE_WRITE, "'" + exe + "' onto the device " + a
                                + " is never allowed");
                    }
                }
            }
            return null;
        }

        private CommandVerdict kill(String exe, List<String> args) {
            if (exe.equals("killall5")) {
                return deny(CommandRule.KILL_ALL, "killall5 signals every process; it is never allowed");
            }
            if (!exe.equals("kill")) {
                return null;
            }
            List<String> targets = args;
            if (targets.size() > 1 && (targets.get(0).equals("-s") || targets.get(0).equals("-n"))) {
                targets = targets.subList(2, targets.size());
            } else if (targets.size() > 1 && targets.get(0).startsWith("-")) {
                targets = targets.subList(1, targets.size()); // the signal
            }
            if (targets.contains("-1") || targets.contains("1")) {
                return deny(CommandRule.KILL_ALL, "killing every process (kill -1) or init (kill 1) is never allowed");
            }
            return null;
        }

        /** {@code rm -r} / {@code chmod -R} of a protected target; {@code null} otherwise. */
        private CommandVerdict recursive(String exe, List<String> args, Pattern shortFlag, CommandRule rule) {
            boolean isRecursive = false;
            boolean endOfOptions = false;
            List<String> targets = new ArrayList<>();
            for (String a : args) {
                if (!endOfOptions && a.equals("--")) {
                    endOfOptions = true;
                } else if (!endOfOptions && a.equals("--no-preserve-root")) {
                    return deny(rule, exe + " --no-preserve-root is never allowed");
                } else if (!endOfOptions && a.startsWith("-") && a.length() > 1) {
                    isRecursive |= a.equals("--recursive") || shortFlag.matcher(a).matches();
                } else {
                    targets.add(a);
                }
            }
            if (!isRecursive) {
                return null;
            }
            for (String t : targets) {
                if (isProtectedFromEither(t, true)) {
                    return deny(rule, exe + " -r on '" + t + "' would hit the file-system root, a top-level"
                            + " directory, a home directory, the workspace root or a path outside the workspace");
                }
            }
            return null;
        }

        private CommandVerdict permissions(String exe, List<String> args) {
            List<String> rest = new ArrayList<>();
            boolean worldWritable = false;
            boolean ownerSkipped = exe.equals("chmod") || args.stream().anyMatch(a -> a.startsWith("--reference"));
            for (String a : args) {
                if (exe.equals("chmod") && CHMOD_MODE.matcher(a).matches()) {
                    worldWritable |= worldWritable(a);
                } else if (!ownerSkipped && !a.startsWith("-")) {
                    ownerSkipped = true; // chown's OWNER[:GROUP], chgrp's GROUP
                } else {
                    rest.add(a);
                }
            }
            CommandVerdict d = recursive(exe, rest, CHMOD_RECURSIVE, CommandRule.RECURSIVE_CHANGE_OF_PROTECTED_PATH);
            if (d != null) {
                return d;
            }
            boolean isRecursive = rest.stream().anyMatch(a -> a.equals("--recursive")
                    || CHMOD_RECURSIVE.matcher(a).matches());
            if (isRecursive || worldWritable) {
                ask(CommandRule.PERMISSION_CHANGE, (isRecursive ? "recursive" : "world-writable") + " '" + exe + "'");
            }
            return null;
        }

        private static boolean worldWritable(String mode) {
            if (OCTAL_MODE.matcher(mode).matches()) {
                return "2367".indexOf(mode.charAt(mode.length() - 1)) >= 0;
            }
            for (String clause : mode.split(",")) {
                int op = 0;
                while (op < clause.length() && "ugoa".indexOf(clause.charAt(op)) >= 0) {
                    op++;
                }
                String who = clause.substring(0, op);
                if (op < clause.length() && clause.charAt(op) != '-' && clause.indexOf('w', op) > 0
                        && (who.contains("o") || who.contains("a"))) {
                    return true;
                }
            }
            return false;
        }

        private CommandVerdict find(List<String> args, SimpleCommand c, int nesting) {
            List<String> starts = new ArrayList<>();
            int first = 0;
            while (first < args.size() && Set.of("-H", "-L", "-P").contains(args.get(first))) {
                first++; // symlink options come before the start points
            }
            for (String a : args.subList(first, args.size())) {
                if (a.startsWith("-") || a.equals("(") || a.equals("!")) {
                    break;
                }
                starts.add(a);
            }
            if (starts.isEmpty()) {
                starts.add(".");
            }
            List<Invocation> execs = new ArrayList<>();
            for (int k = 0; k < args.size(); k++) {
                String a = args.get(k);
                if (a.equals("-exec") || a.equals("-execdir") || a.equals("-ok") || a.equals("-okdir")) {
                    List<String> words = new ArrayList<>();
                    int end = ReadOnlyCommands.findExecEnd(args, k + 1);
                    int j = k + 1;
                    for (; j < (end < 0 ? args.size() : end); j++) {
                        if (!args.get(j).contains("{}")) {
                            words.add(args.get(j)); // {} is a matched file: judged through the start points
                        }
                    }
                    CommandRules.invocation(words).ifPresent(execs::add);
                    k = j;
                }
            }
            boolean deletes = args.contains("-delete") || execs.stream().anyMatch(i -> i.exe().equals("rm"));
            if (deletes) {
                for (String s : starts) {
                    // find deletes only what matches, so the workspace itself is a fine start; / and homes are not
                    if (isProtectedFromEither(s, false)) {
                        return deny(CommandRule.RECURSIVE_DELETE_OF_PROTECTED_PATH, "find … -delete starting at '" + s
                                + "' would delete from the file-system root, a system directory, a home or outside"
                                + " the workspace");
                    }
                }
            }
            if (args.contains("-delete")) {
                ask(CommandRule.FIND_DELETE, "find with -delete");
            }
            for (Invocation inner : execs) {
                CommandVerdict d = check(inner, c, nesting);
                if (d != null) {
                    return d;
                }
            }
            return null;
        }

        private CommandVerdict shell(String exe, List<String> args, SimpleCommand c, int nesting) {
            readOnly = false;
            boolean runsADownload = ShellParser.flatten(c.nested()).stream()
                    .map(n -> CommandRules.invocation(n.words()))
                    .anyMatch(n -> n.isPresent() && DOWNLOADERS.contains(n.get().exe()));
            if (runsADownload) {
                return deny(CommandRule.REMOTE_SCRIPT_EXECUTION, "running a downloaded script through '" + exe
                        + "' is never allowed; download it, read it, then run it");
            }
            String inner = innerCommand(exe, args);
            return inner == null ? null : line(inner, nesting + 1);
        }

        /** {@code curl … | sh}: a downloader earlier in a pipeline than a shell. */
        private CommandVerdict pipelines(List<SimpleCommand> all) {
            for (SimpleCommand down : all) {
                Optional<Invocation> d = CommandRules.invocation(down.words());
                if (d.isEmpty() || !DOWNLOADERS.contains(d.get().exe())) {
                    continue;
                }
                for (SimpleCommand later : all) {
                    if (later.pipeline() != down.pipeline() || later.stage() <= down.stage()) {
                        continue;
                    }
                    Optional<Invocation> l = CommandRules.invocation(later.words());
                    if (l.isPresent() && (SHELLS.contains(l.get().exe()) || SOURCING.contains(l.get().exe()))) {
                        return deny(CommandRule.REMOTE_SCRIPT_EXECUTION, "piping a download ('" + d.get().exe()
                                + "') into a shell ('" + l.get().exe()
                                + "') is never allowed; download it, read it, then run it");
                    }
                }
            }
            return null;
        }

        private void git(List<String> args) {
            int k = 0;
            while (k < args.size() && args.get(k).startsWith("-")) {
                k += GIT_VALUED.contains(args.get(k)) ? 2 : 1;
            }
            if (k >= args.size()) {
                return;
            }
            String sub = args.get(k);
            List<String> rest = args.subList(k + 1, args.size());
            boolean destructive = switch (sub) {
                case "reset" -> rest.contains("--hard");
                case "clean" -> !rest.contains("-n") && !rest.contains("--dry-run");
                case "push" -> rest.stream().anyMatch(a -> a.startsWith("--force") || a.equals("--delete")
                        || a.equals("--mirror") || PUSH_FORCE_OR_DELETE.matcher(a).matches()
                        || a.startsWith("+") || a.startsWith(":"));
                case "branch" -> rest.stream().anyMatch(a -> a.equals("-D") || a.equals("--delete")
                        || BRANCH_FORCE_DELETE.matcher(a).matches());
                case "checkout" -> rest.contains("--") || rest.contains("-f") || rest.contains("--force")
                        || rest.contains(".");
                case "restore" -> !rest.contains("--staged") || rest.contains("--worktree");
                case "stash" -> !rest.isEmpty() && (rest.get(0).equals("drop") || rest.get(0).equals("clear"));
                default -> false;
            };
            if (destructive) {
                ask(CommandRule.DESTRUCTIVE_GIT, "destructive git command 'git " + sub + "'");
            }
        }

        private void cd(List<String> args) {
            List<String> dirs = args.stream().filter(a -> !a.startsWith("-") || a.equals("-")).toList();
            if (dirs.isEmpty()) {
                cwd = new Location(Base.HOME, Path.of(""));
            } else if (!dirs.get(0).equals("-")) {
                Location to = at(dirs.get(0));
                if (to != null) {
                    cwd = to; // an unknown target (cd "$DIR") leaves the cwd as it was
                }
            }
        }
    }

    /** The paths a command writes through its arguments (for the outside-the-workspace ask). */
    private static List<String> writeTargets(String exe, List<String> args) {
        Set<String> valued = switch (exe) {
            case "tee" -> Set.of();
            case "touch" -> Set.of("-d", "-t", "-r", "--date", "--reference");
            case "mkdir" -> Set.of("-m", "--mode");
            case "cp", "mv", "ln" -> Set.of("-S", "--suffix");
            case "rsync" -> Set.of("-e", "--rsh", "-f", "--filter", "--exclude", "--include", "--exclude-from",
                    "--include-from", "--files-from");
            case "install" -> Set.of("-m", "-o", "-g", "-S", "--mode", "--owner", "--group", "--suffix");
            default -> null;
        };
        if (valued == null) {
            return List.of();
        }
        List<String> operands = new ArrayList<>();
        String targetDir = null;
        boolean endOfOptions = false;
        for (int k = 0; k < args.size(); k++) {
            String a = args.get(k);
            if (!endOfOptions && a.equals("--")) {
                endOfOptions = true;
            } else if (!endOfOptions && (a.equals("-t") || a.equals("--target-directory")) && k + 1 < args.size()) {
                targetDir = args.get(++k);
            } else if (!endOfOptions && a.startsWith("--target-directory=")) {
                targetDir = a.substring("--target-directory=".length());
            } else if (!endOfOptions && a.startsWith("-") && a.length() > 1) {
                k += valued.contains(a) ? 1 : 0;
            } else {
                operands.add(a);
            }
        }
        if (exe.equals("tee") || exe.equals("touch") || exe.equals("mkdir")) {
            return operands;
        }
        if (targetDir != null) {
            return List.of(targetDir);
        }
        // cp/mv/install/ln/rsync: the last operand is the destination (ln with one operand links into the cwd)
        return operands.size() >= 2 ? List.of(operands.get(operands.size() - 1)) : List.of();
    }

    /** The command string of {@code bash -c STRING} or {@code eval ARGS}; {@code null} when there is none. */
    private static String innerCommand(String exe, List<String> args) {
        if (exe.equals("eval")) {
            return args.isEmpty() ? null : String.join(" ", args);
        }
        if (exe.equals("watch")) {
            int k = 0;
            while (k < args.size() && args.get(k).startsWith("-")) {
                k += Set.of("-n", "--interval").contains(args.get(k)) ? 2 : 1;
            }
            return k >= args.size() ? null : String.join(" ", args.subList(k, args.size()));
        }
        if (!SHELLS.contains(exe)) {
            return null; // source / . of a file: its contents are not ours to see
        }
        for (int k = 0; k < args.size(); k++) {
            String a = args.get(k);
            if (a.equals("-o") || a.equals("+o") || a.equals("-O") || a.equals("+O")) {
                k++; // the option's name
            } else if (a.startsWith("-") && !a.startsWith("--") && a.indexOf('c') > 0) {
                for (int j = k + 1; j < args.size(); j++) {
                    if (!args.get(j).startsWith("-")) {
                        return args.get(j);
                    }
                }
                return null;
            } else if (!a.startsWith("-") && !a.startsWith("+")) {
                return null; // a script file: its contents are not ours to see
            }
        }
        return null;
    }
}
