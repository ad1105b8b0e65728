package dev.cohort.core.engine.permission;

import java.util.ArrayList;
import java.util.List;

/**
 * A small shell tokenizer for permission decisions (seed gap 10.2#1: decide on tokens, never substrings). Splits a
 * command line into simple commands at {@code ; & | && || newline ( )}, honours single and double quotes and
 * backslashes, records redirection targets, and parses {@code $(…)} and backtick substitutions as further commands.
 * It is deliberately conservative: anything it cannot parse is reported as {@link #parsed()} {@code false}, and
 * callers ask rather than allow. Pure.
 */
public final class ShellCommand {

    /**
     * One simple command.
     *
     * @param words          the words after quote removal (the executable first)
     * @param writeTargets   targets of output redirections ({@code >}, {@code >>}, {@code 2>} …)
     * @param pipedFrom      the previous command of the same pipeline writes into this one's stdin
     */
    public record Simple(List<String> words, List<String> writeTargets, boolean pipedFrom) {
        /** The executable's base name, lower case ({@code /usr/bin/RM} → {@code rm}), or "" when none. */
        public String exe() {
            int i = 0;
            while (i < words.size() && words.get(i).matches("[A-Za-z_][A-Za-z0-9_]*=.*")) {
                i++; // variable assignments before the command
            }
            if (i >= words.size()) {
                return "";
            }
            String w = words.get(i);
            int slash = w.lastIndexOf('/');
            return (slash >= 0 ? w.substring(slash + 1) : w).toLowerCase();
        }

        /** The words after the executable. */
        public List<String> args() {
            int i = 0;
            while (i < words.size() && words.get(i).matches("[A-Za-z_][A-Za-z0-9_]*=.*")) {
                i++;
            }
            return i + 1 >= words.size() ? List.of() : words.subList(i + 1, words.size());
        }
    }

    private final List<Simple> commands;
    private final boolean parsed;

    private ShellCommand(List<Simple> commands, boolean parsed) {
        this.commands = commands;
        this.parsed = parsed;
    }

    public List<Simple> commands() {
        return commands;
    }

    /** {@code false} when quoting was unbalanced or nesting too deep: treat the command as unknown. */
    public boolean parsed() {
        return parsed;
    }

    public static ShellCommand parse(String line) {
        List<Simple> out = new ArrayList<>();
        boolean ok = parseInto(line == null ? "" : line, out, 0);
        return new ShellCommand(List.copyOf(out), ok);
    }

    private static boolean parseInto(String s, List<Simple> out, int depth) {
        if (depth > 5) {
            return false;
        }
        boolean ok = true;
        List<String> words = new ArrayList<>();
        List<String> writes = new ArrayList<>();
        boolean piped = false;
        StringBuilder cur = null;
        boolean redirectPending = false;
        int n = s.length();
        int i = 0;
        while (i <= n) {
            char c = i < n ? s.charAt(i) : '\n';
            if (c == '\'' ) {
                int end = s.indexOf('\'', i + 1);
                if (end < 0) {
                    return false;
                }
                cur = cur == null ? new StringBuilder() : cur;
                cur.append(s, i + 1, end);
                i = end + 1;
                continue;
            }
            if (c == '"') {
                cur = cur == null ? new StringBuilder() : cur;
                int j = i + 1;
                while (j < n && s.charAt(j) != '"') {
                    char d = s.charAt(j);
                    if (d == '\\' && j + 1 < n) {
                        cur.append(s.charAt(j + 1));
                        j += 2;
                        continue;
                    }
                    if (d == '$' && j + 1 < n && s.charAt(j + 1) == '(') {
                        int close = matchParen(s, j + 1);
                        if (close < 0) {
                            return false;
                        }
                        ok &= parseInto(s.substring(j + 2, close), out, depth + 1);
                        cur.append(s, j, close + 1);
                        j = close + 1;
                        continue;
                    }
                    if (d == '`') {
                        int close = s.indexOf('`', j + 1);
                        if (close < 0) {
                            return false;
                        }
                        ok &= parseInto(s.substring(j + 1, close), out, depth + 1);
                        j = close + 1;
                        continue;
                    }
                    cur.append(d);
                    j++;
                }
                if (j >= n) {
                    return false;
                }
                i = j + 1;
                continue;
            }
            if (c == '\\' && i + 1 < n) {
                cur = cur == null ? new StringBuilder() : cur;
                cur.append(s.charAt(i + 1));
                i += 2;
                continue;
            }
            if (c == '$' && i + 1 < n && s.charAt(i + 1) == '(') {
                int close = matchParen(s, i + 1);
                if (close < 0) {
                    return false;
                }
                ok &= parseInto(s.substring(i + 2, close), out, depth + 1);
                cur = cur == null ? new StringBuilder() : cur;
                cur.append(s, i, close + 1);
                i = close + 1;
                continue;
            }
            if (c == '`') {
                int close = s.indexOf('`', i + 1);
                if (close < 0) {
                    return false;
                }
                ok &= parseInto(s.substring(i + 1, close), out, depth + 1);
                i = close + 1;
                continue;
            }
            boolean space = c == ' ' || c == '\t';
            boolean sep = c == ';' || c == '&' || c == '|' || c == '\n' || c == '(' || c == ')';
            boolean redirect = c == '>' || c == '<';
            if (space || sep || redirect) {
                if (cur != null) {
                    String w = cur.toString();
                    if (redirectPending) {
                        writes.add(w);
                        redirectPending = false;
                    } else if (w.matches("[0-9]+") && redirect) {
                        // a file-descriptor number before a redirection: "2>"
                    } else {
                        words.add(w);
                    }
                    cur = null;
                }
            }
            if (redirect) {
                boolean write = c == '>';
                int j = i + 1;
                while (j < n && (s.charAt(j) == '>' || s.charAt(j) == '&' && write && j == i + 1)) {
                    j++;
                }
                if (j < n && s.charAt(j) == '&' && !write) {
                    j++;
                }
                // ">&2" duplicates a descriptor: no file target
                int k = j;
                while (k < n && (s.charAt(k) == ' ' || s.charAt(k) == '\t')) {
                    k++;
                }
                if (k < n && Character.isDigit(s.charAt(k)) && s.charAt(j - 1) == '&') {
                    i = k + 1;
                    continue;
                }
                if (write) {
                    redirectPending = true;
                } else {
                    // an input redirection: skip its target word
                    int e = k;
                    while (e < n && " \t;&|\n()<>".indexOf(s.charAt(e)) < 0) {
                        e++;
                    }
                    i = e;
                    continue;
                }
                i = j;
                continue;
            }
            if (sep) {
                if (!words.isEmpty() || !writes.isEmpty()) {
                    out.add(new Simple(List.copyOf(words), List.copyOf(writes), piped));
                }
                words = new ArrayList<>();
                writes = new ArrayList<>();
                boolean pipe = c == '|' && !(i + 1 < n && s.charAt(i + 1) == '|') && !(i > 0 && s.charAt(i - 1) == '|');
                piped = pipe;
                if (c == '|' && i + 1 < n && s.charAt(i + 1) == '|' || c == '&' && i + 1 < n && s.charAt(i + 1) == '&') {
                    i += 2;
                    piped = false;
                    continue;
                }
                i++;
                continue;
            }
            if (space) {
                i++;
                continue;
            }
            cur = cur == null ? new StringBuilder() : cur;
            cur.append(c);
            i++;
        }
        return ok && !redirectPending;
    }

    private static int matchParen(String s, int open) {
        int depth = 0;
        for (int i = open; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
                if (depth == 0) {
                    return i;
                }
            } else if (c == '\'') {
                int e = s.indexOf('\'', i + 1);
                if (e < 0) {
                    return -1;
                }
                i = e;
            }
        }
        return -1;
    }
}
