package dev.cohort.core.shell;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The command lines a program runs through a shell that can be read in its arguments: sed's {@code e command}, awk's
 * {@code system("…")} and pipes, vim's {@code -c '!…'}, tar's {@code --to-command}, git's {@code -c core.pager=…}
 * and {@code grep -O…}, man's {@code -P}, {@code script -c}/{@code flock -c}, and a variable such as
 * {@code GIT_PAGER='…'} in front of a command. The rule set judges each as a command line of its own (nested, like a
 * {@code bash -c} string), so that no hard deny is bypassed through them. What cannot be seen (a sed {@code s///e}
 * runs the pattern space, an awk command built at run time) is simply not read-only.
 */
final class EmbeddedCommands {

    private static final Set<String> AWKS = Set.of("awk", "gawk", "mawk", "nawk");
    private static final Set<String> VIMS = Set.of("vi", "vim", "nvim", "view", "ex", "gvim", "rvim", "rview",
            "vimdiff", "gview", "evim");
    /** The last part of a git setting whose value is a command line ({@code core.pager}, {@code diff.x.textconv}). */
    private static final Set<String> GIT_COMMAND_KEYS = Set.of("pager", "editor", "sshcommand", "fsmonitor",
            "askpass", "command", "textconv", "driver", "clean", "smudge", "process", "helper", "program", "cmd",
            "external", "difffilter", "browser");
    /** Variables whose value a program runs as a command line. */
    private static final Pattern COMMAND_VARIABLE = Pattern.compile(
            "[A-Z_]*(PAGER|EDITOR|VISUAL|BROWSER|_COMMAND|EXTERNAL_DIFF|LESSOPEN|LESSCLOSE|ASKPASS|GIT_SSH)");
    private static final Pattern AWK_SYSTEM = Pattern.compile("\\bsystem\\s*\\(");
    private static final Pattern AWK_STRING = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern AWK_PIPE_FROM = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"\\s*\\|\\s*&?\\s*getline");
    private static final Pattern AWK_PIPE_TO = Pattern.compile("(?<!\\|)\\|&?\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
    /** vim's ex commands that run a shell: {@code !cmd}, {@code r !cmd}, {@code w !cmd}, {@code %!cmd}. */
    private static final Pattern VIM_BANG = Pattern.compile(
            "^[\\s:]*(?:sil(?:ent)?!?\\s*)?[%.$,0-9'<>]*\\s*(?:r(?:ead)?\\s*|w(?:rite)?\\s*)?!(.*)$", Pattern.DOTALL);
    private static final Pattern VIM_TERMINAL = Pattern.compile("^[\\s:]*ter(?:minal)?!?\\s+(.*)$", Pattern.DOTALL);
    private static final Pattern VIM_SYSTEM = Pattern.compile("system(?:list)?\\(\\s*(['\"])(.*?)\\1");

    private EmbeddedCommands() {
    }

    /** The command lines {@code exe args} would run through a shell, as far as its arguments show them. */
    static List<String> of(String exe, List<String> args) {
        List<String> found = new ArrayList<>();
        if (exe.equals("sed")) {
            for (String script : sedScripts(args)) {
                found.addAll(SedScript.of(script).executed());
            }
        } else if (AWKS.contains(exe)) {
            args.forEach(a -> found.addAll(awk(a)));
        } else if (VIMS.contains(exe)) {
            for (int k = 0; k < args.size(); k++) {
                String a = args.get(k);
                if ((a.equals("-c") || a.equals("--cmd")) && k + 1 < args.size()) {
                    found.addAll(vim(args.get(++k)));
                } else if (a.startsWith("+") && a.length() > 1) {
                    found.addAll(vim(a.substring(1)));
                }
            }
        } else if (exe.equals("tar")) {
            found.addAll(values(args, Set.of("--to-command", "--use-compress-program", "-I", "--info-script",
                    "--new-volume-script", "-F", "--rsh-command")));
            for (String v : values(args, Set.of("--checkpoint-action"))) {
                if (v.startsWith("exec=")) {
                    found.add(v.substring("exec=".length()));
                }
            }
        } else if (exe.equals("git")) {
            found.addAll(git(args));
        } else if (exe.equals("man")) {
            found.addAll(values(args, Set.of("-P", "--pager", "--html")));
        } else if (exe.equals("script") || exe.equals("flock")) {
            found.addAll(values(args, Set.of("-c", "--command")));
        }
        found.removeIf(String::isBlank);
        return found;
    }

    /** The command line in {@code NAME=value} when the variable is one programs run ({@code GIT_PAGER}…). */
    static List<String> ofAssignment(String assignment) {
        int eq = assignment.indexOf('=');
        String name = assignment.substring(0, eq).replace("+", "");
        String value = assignment.substring(eq + 1);
        if (!COMMAND_VARIABLE.matcher(name).matches() || value.isBlank()) {
            return List.of();
        }
        // LESSOPEN='|cmd %s' or '||cmd %s' (a pipe), '-' (also on standard input)
        return List.of(value.replaceFirst("^[|-]+", ""));
    }

    /** sed's scripts: the values of -e/--expression, else the first operand. */
    private static List<String> sedScripts(List<String> args) {
        List<String> scripts = new ArrayList<>();
        String firstOperand = null;
        for (int k = 0; k < args.size(); k++) {
            String a = args.get(k);
            if (a.equals("--expression") && k + 1 < args.size()) {
                scripts.add(args.get(++k));
            } else if (a.equals("--file") || a.equals("--line-length")) {
                k++;
            } else if (a.startsWith("--expression=")) {
                scripts.add(a.substring("--expression=".length()));
            } else if (a.startsWith("-") && !a.startsWith("--") && a.length() > 1) {
                int e = a.indexOf('e');
                int f = a.indexOf('f');
                int l = a.indexOf('l');
                if (e > 0 && (f < 0 || e < f) && (l < 0 || e < l)) {
                    if (e + 1 < a.length()) {
                        scripts.add(a.substring(e + 1));
                    } else if (k + 1 < args.size()) {
                        scripts.add(args.get(++k));
                    }
                } else if ((f > 0 || l > 0) && a.length() == Math.max(f, l) + 1) {
                    k++; // -f FILE, -l N
                }
            } else if (!a.startsWith("-") && firstOperand == null) {
                firstOperand = a;
            }
        }
        if (scripts.isEmpty() && firstOperand != null) {
            scripts.add(firstOperand);
        }
        return scripts;
    }

    /** awk: the string literals given to system(…), and the commands piped from ("cmd" | getline) or to (| "cmd"). */
    static List<String> awk(String program) {
        List<String> found = new ArrayList<>();
        Matcher m = AWK_SYSTEM.matcher(program);
        while (m.find()) {
            // the literals of the argument list, concatenated: system("rm -rf " "/")
            StringBuilder command = new StringBuilder();
            int depth = 1;
            int k = m.end();
            while (k < program.length() && depth > 0) {
                char c = program.charAt(k);
                if (c == '"') {
                    Matcher lit = AWK_STRING.matcher(program).region(k, program.length());
                    if (!lit.lookingAt()) {
                        break;
                    }
                    command.append(awkUnescape(lit.group(1)));
                    k = lit.end();
                    continue;
                }
                if (c == '(') {
                    depth++;
                } else if (c == ')') {
                    depth--;
                }
                k++;
            }
            found.add(command.toString());
        }
        for (Pattern p : List.of(AWK_PIPE_FROM, AWK_PIPE_TO)) {
            Matcher pm = p.matcher(program);
            while (pm.find()) {
                found.add(awkUnescape(pm.group(1)));
            }
        }
        return found;
    }

    private static String awkUnescape(String s) {
        StringBuilder b = new StringBuilder();
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            if (c == '\\' && k + 1 < s.length()) {
                char n = s.charAt(++k);
                b.append(switch (n) {
                    case 'n' -> '\n';
                    case 't' -> '\t';
                    default -> n;
                });
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /** vim: an ex command that runs a shell command ({@code !…}, {@code terminal …}, {@code system('…')}). */
    private static List<String> vim(String exCommand) {
        List<String> found = new ArrayList<>();
        Matcher bang = VIM_BANG.matcher(exCommand);
        if (bang.matches()) {
            found.add(bang.group(1));
        }
        Matcher terminal = VIM_TERMINAL.matcher(exCommand);
        if (terminal.matches()) {
            found.add(terminal.group(1));
        }
        Matcher system = VIM_SYSTEM.matcher(exCommand);
        while (system.find()) {
            found.add(system.group(2));
        }
        return found;
    }

    /** git: the values of {@code -c key=value} for settings that name a command, and {@code grep -O<pager>}. */
    private static List<String> git(List<String> args) {
        List<String> found = new ArrayList<>();
        int k = 0;
        while (k < args.size() && args.get(k).startsWith("-")) {
            String a = args.get(k);
            if (a.equals("-c") && k + 1 < args.size()) {
                String setting = args.get(k + 1);
                int eq = setting.indexOf('=');
                if (eq > 0) {
                    String key = setting.substring(0, eq).toLowerCase(Locale.ROOT);
                    String value = setting.substring(eq + 1);
                    String last = key.substring(key.lastIndexOf('.') + 1);
                    if (value.startsWith("!")) {
                        found.add(value.substring(1)); // alias.x=!cmd, credential.helper=!cmd
                    } else if (GIT_COMMAND_KEYS.contains(last) || key.startsWith("pager.")) {
                        found.add(value);
                    }
                }
                k += 2;
            } else {
                k += a.equals("-C") || a.equals("--git-dir") || a.equals("--work-tree") || a.equals("--namespace")
                        ? 2 : 1;
            }
        }
        if (k < args.size() && args.get(k).equals("grep")) {
            for (String a : args.subList(k + 1, args.size())) {
                if (a.startsWith("-O") && a.length() > 2) {
                    found.add(a.substring(2));
                } else if (a.startsWith("--open-files-in-pager=")) {
                    found.add(a.substring("--open-files-in-pager=".length()));
                }
            }
        }
        return found;
    }

    /** The values of the options {@code names}: {@code --name=value}, {@code --name value}, {@code -X value}. */
    private static List<String> values(List<String> args, Set<String> names) {
        List<String> found = new ArrayList<>();
        for (int k = 0; k < args.size(); k++) {
            String a = args.get(k);
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0 && names.contains(a.substring(0, eq))) {
                found.add(a.substring(eq + 1));
            } else if (names.contains(a) && k + 1 < args.size()) {
                found.add(args.get(++k));
            }
        }
        return found;
    }
}
