package dev.cohort.core.engine.permission;

import dev.cohort.core.shell.CommandRules;
import dev.cohort.core.shell.ShellParser;
import dev.cohort.core.tools.PermissionSubject;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One call as the team's rules see it: {@link #any} are the texts a deny or ask rule may match (the whole command,
 * each simple command as written and reduced to what runs, the commands of {@code sh -c} and {@code eval} strings; or
 * the path), {@link #parts} the texts allow rules must cover together (each simple command as written; or the path
 * when it is known to be inside the workspace). Pure.
 *
 * @param any   the texts any of which a deny or ask rule may match ({@code null} inside: the call has no text)
 * @param parts the texts every one of which an allow rule must match; empty = allow rules cannot cover the call
 */
record RuleCandidates(List<String> any, List<String> parts) {

    /** How deep {@code bash -c 'bash -c …'} strings are followed; as deep as the command rule set follows them. */
    static final int MAX_NESTING = 6;
    /** How much of a matched text a decision quotes: enough to recognise the command, short enough for a sentence. */
    static final int QUOTE_CHARS = 200;

    private static final Set<String> SHELLS = Set.of("sh", "bash", "zsh", "dash", "ksh", "mksh", "ash");

    /** The parts of a call that puts {@code subject} at stake, run in {@code workspace}. */
    static RuleCandidates of(PermissionSubject subject, CommandRules.Workspace workspace) {
        return switch (subject) {
            case PermissionSubject.Command c -> command(c.command());
            case PermissionSubject.Path p -> path(p.path(), workspace);
            case PermissionSubject.FileWrite f -> path(f.path(), workspace);
            default -> new RuleCandidates(nullList(), nullList());
        };
    }

    /** {@code s} cut to {@link #QUOTE_CHARS} for a decision's sentence. */
    static String shorten(String s) {
        return s.length() <= QUOTE_CHARS ? s : s.substring(0, QUOTE_CHARS) + "…";
    }

    private static List<String> nullList() {
        List<String> l = new ArrayList<>(1);
        l.add(null);
        return l;
    }

    // ---- commands

    private static RuleCandidates command(String command) {
        String raw = command == null ? "" : command.strip();
        Set<String> any = new LinkedHashSet<>();
        any.add(raw);
        List<String> parts = new ArrayList<>();
        try {
            List<ShellParser.SimpleCommand> top = ShellParser.flatten(ShellParser.parse(raw));
            for (ShellParser.SimpleCommand c : top) {
                parts.add(written(c));
            }
            runs(top, any, 0);
        } catch (ShellParser.ParseException e) {
            parts.clear(); // not valid shell (the command rule set denies it before the rules): allow rules cannot cover it
        }
        return new RuleCandidates(List.copyOf(any), List.copyOf(parts));
    }

    /** Each command as written and as what runs, following {@code sh -c} and {@code eval} strings. */
    private static void runs(List<ShellParser.SimpleCommand> commands, Set<String> any, int depth) {
        for (ShellParser.SimpleCommand c : commands) {
            any.add(written(c));
            any.add(String.join(" ", c.words()));
            CommandRules.invocation(c.words()).ifPresent(inv -> {
                List<String> words = new ArrayList<>();
                words.add(inv.exe());
                words.addAll(inv.args());
                any.add(String.join(" ", words));
                String nested = embedded(inv);
                if (nested != null && depth < MAX_NESTING) {
                    any.add(nested.strip());
                    try {
                        runs(ShellParser.flatten(ShellParser.parse(nested)), any, depth + 1);
                    } catch (ShellParser.ParseException e) {
                        // the string itself stays a candidate; the command rule set judges its syntax
                    }
                }
            });
        }
    }

    /** The command line a shell's {@code -c} or {@code eval} runs, {@code null} for any other program. */
    private static String embedded(CommandRules.Invocation inv) {
        if (inv.exe().equals("eval")) {
            return inv.args().isEmpty() ? null : String.join(" ", inv.args());
        }
        if (!SHELLS.contains(inv.exe())) {
            return null;
        }
        List<String> args = inv.args();
        for (int i = 0; i < args.size() - 1; i++) {
            String a = args.get(i);
            if (a.startsWith("-") && !a.startsWith("--") && a.indexOf('c') > 0) {
                return args.get(i + 1);
            }
        }
        return null;
    }

    /** A simple command as written: its words (quotes removed) and redirections, single-spaced. */
    private static String written(ShellParser.SimpleCommand c) {
        StringBuilder b = new StringBuilder(String.join(" ", c.words()));
        for (ShellParser.Redirect r : c.redirects()) {
            b.append(b.isEmpty() ? "" : " ").append(r.op()).append(' ').append(r.target());
        }
        return b.toString();
    }

    // ---- paths

    /**
     * The path relative to the workspace (or worktree) root when it stays inside; otherwise (absolute, climbing out
     * with {@code ..}, a home path) the root is unknown here, so deny and ask rules are tried on every tail of it
     * ({@code /srv/ws/secrets/key} → {@code secrets/key} …) and allow rules cannot cover it.
     */
    private static RuleCandidates path(String raw, CommandRules.Workspace workspace) {
        if (raw == null || raw.isBlank() || raw.contains("://")) {
            return new RuleCandidates(nullList(), List.of()); // no workspace path (an output reference)
        }
        String slashed = raw.strip().replace('\\', '/');
        Set<String> any = new LinkedHashSet<>();
        any.add(slashed);
        String inside = inside(slashed, workspace);
        if (inside != null) {
            any.add(inside);
            return new RuleCandidates(List.copyOf(any), List.of(inside));
        }
        String[] segments = slashed.split("/+");
        for (int i = 0; i < segments.length; i++) {
            List<String> tail = new ArrayList<>();
            for (int j = i; j < segments.length; j++) {
                if (!segments[j].isEmpty() && !segments[j].equals(".") && !segments[j].equals("..")
                        && !segments[j].startsWith("~")) {
                    tail.add(segments[j]);
                }
            }
            if (!tail.isEmpty()) {
                any.add(String.join("/", tail));
            }
        }
        return new RuleCandidates(List.copyOf(any), List.of());
    }

    /** {@code raw} relative to the root, normalised; {@code null} when it is not known to be inside. */
    private static String inside(String raw, CommandRules.Workspace workspace) {
        try {
            Path p = Path.of(raw);
            if (p.isAbsolute()) {
                if (workspace.root() == null) {
                    return null;
                }
                Path n = p.normalize();
                return n.startsWith(workspace.root()) ? workspace.root().relativize(n).toString() : null;
            }
            if (raw.startsWith("~") || raw.startsWith("$")) {
                return null;
            }
            Path n = workspace.cwd().resolve(p).normalize();
            if (n.startsWith("..")) {
                return null;
            }
            return n.toString();
        } catch (InvalidPathException e) {
            return null;
        }
    }
}
