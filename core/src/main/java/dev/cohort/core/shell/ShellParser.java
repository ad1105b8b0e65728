package dev.cohort.core.shell;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A tokeniser for the subset of POSIX shell / bash syntax that matters to the command policy: simple commands with
 * quote removal, pipelines, lists ({@code ; && || & newline}), subshells and groups, redirections (with fd
 * prefixes, dups and here-documents, whose bodies are data, not commands), command and process substitution
 * (parsed recursively), comments and line continuations. Not an interpreter: variables are not expanded.
 */
public final class ShellParser {
    /** Nesting bound for substitutions inside substitutions; deeper input is refused as unparseable. */
    static final int MAX_DEPTH = 8;

    /** Reserved words that may open a command position and are not themselves executed. */
    private static final Set<String> SKIPPED_KEYWORDS = Set.of("{", "}", "!", "if", "then", "else", "elif", "fi",
            "do", "done", "while", "until", "esac", "time", "function", "coproc");
    /** Compound headers whose words are data ({@code for x in a b}). */
    private static final Set<String> HEADER_KEYWORDS = Set.of("for", "case", "select", "in");

    /** A redirection: operator ({@code >}, {@code >>}, {@code <}, {@code &>}, {@code <<}, …) and its target word. */
    public record Redirect(String op, String target) {
        /** {@code true} for operators that open the target for writing. */
        public boolean writes() {
            return op.contains(">") && !op.equals(">&") || op.equals("<>");
        }
    }

    /**
     * One simple command.
     *
     * @param words     command words after quote removal (substitutions appear as {@code $(…)} placeholders)
     * @param redirects its redirections
     * @param pipeline  id of the pipeline it belongs to (unique within one parse, nested ones included)
     * @param stage     its position in that pipeline
     * @param nested    commands found in substitutions inside its words and redirections
     */
    public record SimpleCommand(List<String> words, List<Redirect> redirects, int pipeline, int stage,
            List<SimpleCommand> nested) {
    }

    /** The input is not valid shell (unbalanced quotes or parentheses). */
    public static final class ParseException extends RuntimeException {
        public ParseException(String message) {
            super(message);
        }
    }

    private final String s;
    private final int n;
    private final int depth;
    private final int[] pipelineCounter;
    private int i;

    private final List<SimpleCommand> out = new ArrayList<>();
    private final List<String> words = new ArrayList<>();
    private final List<Redirect> redirects = new ArrayList<>();
    private final List<SimpleCommand> nestedOfCurrent = new ArrayList<>();
    private final List<String[]> pendingHeredocs = new ArrayList<>();
    private final StringBuilder word = new StringBuilder();
    private boolean inWord;
    private boolean wordQuoted;
    private String pendingRedirect;
    private int pipeline;
    private int stage;

    private ShellParser(String s, int depth, int[] pipelineCounter) {
        this.s = s;
        this.n = s.length();
        this.depth = depth;
        this.pipelineCounter = pipelineCounter;
        this.pipeline = pipelineCounter[0]++;
    }

    /** Parses {@code command}; throws {@link ParseException} on unbalanced quotes or parentheses. */
    public static List<SimpleCommand> parse(String command) {
        return parse(command, 0, new int[] {0});
    }

    static List<SimpleCommand> parse(String command, int depth, int[] counter) {
        if (depth > MAX_DEPTH) {
            throw new ParseException("substitutions nested more than " + MAX_DEPTH + " deep");
        }
        ShellParser p = new ShellParser(command, depth, counter);
        p.run();
        return p.out;
    }

    /** Every command of {@code commands}, nested ones included, depth first. */
    public static List<SimpleCommand> flatten(List<SimpleCommand> commands) {
        List<SimpleCommand> all = new ArrayList<>();
        for (SimpleCommand c : commands) {
            all.add(c);
            all.addAll(flatten(c.nested()));
        }
        return all;
    }

    private void run() {
        while (i < n) {
            char c = s.charAt(i);
            switch (c) {
                case ' ', '\t', '\r' -> {
                    endWord();
                    i++;
                }
                case '\n' -> {
                    endCommand(false);
                    i++;
                    skipHeredocBodies();
                }
                case '\\' -> {
                    if (i + 1 < n && s.charAt(i + 1) == '\n') {
                        i += 2;
                    } else {
                        if (i + 1 < n) {
                            append(s.charAt(i + 1));
                        }
                        i += 2;
                        wordQuoted = true;
                    }
                }
                case '#' -> {
                    if (!inWord) {
                        while (i < n && s.charAt(i) != '\n') {
                            i++;
                        }
                    } else {
                        append(c);
                        i++;
                    }
                }
                case '\'' -> {
                    int end = s.indexOf('\'', i + 1);
                    if (end < 0) {
                        throw new ParseException("unterminated single quote");
                    }
                    appendAll(s.substring(i + 1, end));
                    wordQuoted = true;
                    i = end + 1;
                }
                case '"' -> readDoubleQuoted();
                case '$' -> readDollar();
                case '`' -> readBackticks();
                case '<', '>' -> {
                    if (i + 1 < n && s.charAt(i + 1) == '(' && !inWord) {
                        String inner = readBalanced(i + 1);
                        nestedOfCurrent.addAll(parse(inner, depth + 1, pipelineCounter));
                        appendAll(c + "(…)");
                        endWord();
                    } else {
                        readRedirect();
                    }
                }
                case '&' -> {
                    if (i + 1 < n && s.charAt(i + 1) == '&') {
                        endCommand(false);
                        i += 2;
                    } else if (i + 1 < n && s.charAt(i + 1) == '>') {
                        endWord();
                        boolean append = i + 2 < n && s.charAt(i + 2) == '>';
                        pendingRedirect = append ? "&>>" : "&>";
                        i += append ? 3 : 2;
                    } else {
                        endCommand(false);
                        i++;
                    }
                }
                case '|' -> {
                    if (i + 1 < n && s.charAt(i + 1) == '|') {
                        endCommand(false);
                        i += 2;
                    } else {
                        endCommand(true);
                        i += (i + 1 < n && s.charAt(i + 1) == '&') ? 2 : 1;
                    }
                }
                case ';' -> {
                    endCommand(false);
                    i += (i + 1 < n && s.charAt(i + 1) == ';') ? 2 : 1;
                }
                case '(', ')' -> {
                    endCommand(false);
                    i++;
                }
                default -> {
                    append(c);
                    i++;
                }
            }
        }
        if (pendingRedirect != null && !inWord) {
            throw new ParseException("redirection '" + pendingRedirect + "' has no target");
        }
        endCommand(false);
    }

    private void append(char c) {
        word.append(c);
        inWord = true;
    }

    private void appendAll(String t) {
        word.append(t);
        inWord = true;
    }

    private void readDoubleQuoted() {
        i++;
        inWord = true;
        wordQuoted = true;
        while (i < n) {
            char c = s.charAt(i);
            if (c == '"') {
                i++;
                return;
            }
            if (c == '\\' && i + 1 < n && "$`\"\\\n".indexOf(s.charAt(i + 1)) >= 0) {
                if (s.charAt(i + 1) != '\n') {
                    word.append(s.charAt(i + 1));
                }
                i += 2;
            } else if (c == '$') {
                readDollar();
            } else if (c == '`') {
                readBackticks();
            } else {
                word.append(c);
                i++;
            }
        }
        throw new ParseException("unterminated double quote");
    }

    private void readDollar() {
        char next = i + 1 < n ? s.charAt(i + 1) : 0;
        if (next == '\'') {
            // ANSI-C quoting: backslash escapes, ends at an unescaped quote
            int j = i + 2;
            StringBuilder lit = new StringBuilder();
            while (j < n && s.charAt(j) != '\'') {
                if (s.charAt(j) == '\\' && j + 1 < n) {
                    char e = s.charAt(j + 1);
                    lit.append(switch (e) {
                        case 'n' -> '\n';
                        case 't' -> '\t';
                        default -> e;
                    });
                    j += 2;
                } else {
                    lit.append(s.charAt(j++));
                }
            }
            if (j >= n) {
                throw new ParseException("unterminated $'…' quote");
            }
            appendAll(lit.toString());
            wordQuoted = true;
            i = j + 1;
        } else if (next == '(' && i + 2 < n && s.charAt(i + 2) == '(') {
            String inner = readBalanced(i + 1); // arithmetic: not commands, but may hold substitutions
            appendAll("$((" + inner + "))");
        } else if (next == '(') {
            String inner = readBalanced(i + 1);
            nestedOfCurrent.addAll(parse(inner, depth + 1, pipelineCounter));
            appendAll("$(…)");
        } else if (next == '{') {
            int end = s.indexOf('}', i + 2);
            if (end < 0) {
                throw new ParseException("unterminated ${…}");
            }
            appendAll(s.substring(i, end + 1));
            i = end + 1;
        } else {
            append('$');
            i++;
        }
    }

    private void readBackticks() {
        int j = i + 1;
        StringBuilder inner = new StringBuilder();
        while (j < n && s.charAt(j) != '`') {
            if (s.charAt(j) == '\\' && j + 1 < n) {
                inner.append(s.charAt(j + 1));
                j += 2;
            } else {
                inner.append(s.charAt(j++));
            }
        }
        if (j >= n) {
            throw new ParseException("unterminated backquote");
        }
        nestedOfCurrent.addAll(parse(inner.toString(), depth + 1, pipelineCounter));
        appendAll("$(…)");
        i = j + 1;
    }

    /** Reads from the '(' at {@code open} to its matching ')' (quote-aware); returns the inside; moves past it. */
    private String readBalanced(int open) {
        int d = 0;
        int j = open;
        while (j < n) {
            char c = s.charAt(j);
            if (c == '\\') {
                j += 2;
                continue;
            }
            if (c == '\'') {
                int end = s.indexOf('\'', j + 1);
                if (end < 0) {
                    throw new ParseException("unterminated single quote");
                }
                j = end + 1;
                continue;
            }
            if (c == '"') {
                j++;
                while (j < n && s.charAt(j) != '"') {
                    j += s.charAt(j) == '\\' ? 2 : 1;
                }
                if (j >= n) {
                    throw new ParseException("unterminated double quote");
                }
                j++;
                continue;
            }
            if (c == '(') {
                d++;
            } else if (c == ')') {
                d--;
                if (d == 0) {
                    i = j + 1;
                    return s.substring(open + 1, j);
                }
            }
            j++;
        }
        throw new ParseException("unbalanced parenthesis");
    }

    private void readRedirect() {
        // an all-digit word right before the operator is its fd number, not an argument
        if (inWord && !wordQuoted && word.chars().allMatch(Character::isDigit)) {
            word.setLength(0);
            inWord = false;
        } else {
            endWord();
        }
        String op;
        if (s.startsWith("<<<", i)) {
            op = "<<<";
        } else if (s.startsWith("<<-", i)) {
            op = "<<-";
        } else if (s.startsWith("<<", i)) {
            op = "<<";
        } else if (s.startsWith(">>", i)) {
            op = ">>";
        } else if (s.startsWith(">|", i)) {
            op = ">|";
        } else if (s.startsWith(">&", i)) {
            op = ">&";
        } else if (s.startsWith("<&", i)) {
            op = "<&";
        } else if (s.startsWith("<>", i)) {
            op = "<>";
        } else {
            op = s.substring(i, i + 1);
        }
        i += op.length();
        pendingRedirect = op;
    }

    private void endWord() {
        if (!inWord) {
            return;
        }
        String w = word.toString();
        boolean quoted = wordQuoted;
        word.setLength(0);
        inWord = false;
        wordQuoted = false;
        if (pendingRedirect != null) {
            String op = pendingRedirect;
            pendingRedirect = null;
            if (op.equals(">&") && !(w.chars().allMatch(Character::isDigit) || w.equals("-"))) {
                op = "&>"; // '>& file' writes both streams to a file
            }
            redirects.add(new Redirect(op, w));
            if (op.startsWith("<<") && !op.equals("<<<")) {
                pendingHeredocs.add(new String[] {w, op});
            }
            return;
        }
        if (words.isEmpty() && !quoted && SKIPPED_KEYWORDS.contains(w)) {
            return;
        }
        words.add(w);
    }

    private void endCommand(boolean pipeToNext) {
        endWord();
        if (pendingRedirect != null) {
            throw new ParseException("redirection '" + pendingRedirect + "' has no target");
        }
        boolean header = !words.isEmpty() && HEADER_KEYWORDS.contains(words.get(0));
        if (!header && (!words.isEmpty() || !redirects.isEmpty() || !nestedOfCurrent.isEmpty())) {
            out.add(new SimpleCommand(List.copyOf(words), List.copyOf(redirects), pipeline, stage,
                    List.copyOf(nestedOfCurrent)));
        } else if (header && !nestedOfCurrent.isEmpty()) {
            out.addAll(nestedOfCurrent);
        }
        words.clear();
        redirects.clear();
        nestedOfCurrent.clear();
        if (pipeToNext) {
            stage++;
        } else {
            pipeline = pipelineCounter[0]++;
            stage = 0;
        }
    }

    /** After a newline: skips the bodies of here-documents opened on the previous line. */
    private void skipHeredocBodies() {
        for (String[] h : pendingHeredocs) {
            String delim = h[0];
            boolean stripTabs = h[1].equals("<<-");
            while (i < n) {
                int eol = s.indexOf('\n', i);
                String line = eol < 0 ? s.substring(i) : s.substring(i, eol);
                i = eol < 0 ? n : eol + 1;
                if ((stripTabs ? line.replaceFirst("^\t+", "") : line).equals(delim)) {
                    break;
                }
            }
        }
        pendingHeredocs.clear();
    }
}
