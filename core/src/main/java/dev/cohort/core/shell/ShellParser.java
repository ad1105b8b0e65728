package dev.cohort.core.shell;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A tokeniser for the subset of POSIX shell / bash syntax that matters to the command policy: simple commands with
 * quote removal, pipelines, lists ({@code ; && || & newline}), subshells and groups, redirections (with fd
 * prefixes, dups and here-documents, whose bodies are data, not commands), command and process substitution
 * (parsed recursively, also inside {@code ${…}}, {@code $((…))} and here-documents whose delimiter is unquoted),
 * comments and line continuations. Not an interpreter: variables are not expanded, but each word says whether the
 * shell would expand it, and each command whether it evaluates text as arithmetic.
 */
public final class ShellParser {
    /** Nesting bound for substitutions inside substitutions; deeper input is refused as unparseable. */
    static final int MAX_DEPTH = 8;

    /** Reserved words that may open a command position and are not themselves executed. */
    private static final Set<String> SKIPPED_KEYWORDS = Set.of("{", "}", "!", "if", "then", "else", "elif", "fi",
            "do", "done", "while", "until", "esac", "time", "function", "coproc");
    /** Compound headers whose words are data ({@code for x in a b}). */
    private static final Set<String> HEADER_KEYWORDS = Set.of("for", "case", "select", "in");
    /** Arithmetic text that names a variable (whose value is evaluated in turn) or holds an expansion. */
    private static final Pattern NAMES_A_VALUE = Pattern.compile("[A-Za-z_$`]");
    /** An unquoted brace list ({@code {a,b}}, {@code {1..3}}), which the shell turns into several words. */
    private static final Pattern BRACE_LIST = Pattern.compile("\\{[^}]*(,|\\.\\.)[^}]*}");

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
     * @param nested    commands found in substitutions inside its words, redirections and here-documents
     * @param expanded  the indexes of the words the shell expands before the command sees them (a parameter, a
     *                  substitution, arithmetic, an unquoted glob or brace list): their text here is not what the
     *                  command receives
     * @param splits    the indexes of the expanded words with an unquoted expansion ({@code $x}, not {@code "$x"}):
     *                  the shell may split such a word into several, or drop it
     * @param evaluates the command makes the shell evaluate text as arithmetic or as a variable name
     *                  ({@code $((…))}, {@code ((…))}, {@code $[…]}, {@code ${a[i]}}, {@code ${x:n}}, {@code ${!x}},
     *                  also in an unquoted here-document), which runs any {@code $(…)} stored in a variable's value
     */
    public record SimpleCommand(List<String> words, List<Redirect> redirects, int pipeline, int stage,
            List<SimpleCommand> nested, Set<Integer> expanded, Set<Integer> splits, boolean evaluates) {

        /** A command whose words are all literal and that evaluates nothing. */
        public SimpleCommand(List<String> words, List<Redirect> redirects, int pipeline, int stage,
                List<SimpleCommand> nested) {
            this(words, redirects, pipeline, stage, nested, Set.of(), Set.of(), false);
        }

        public SimpleCommand {
            expanded = Set.copyOf(expanded);
            splits = Set.copyOf(splits);
        }

        SimpleCommand evaluating() {
            return new SimpleCommand(words, redirects, pipeline, stage, nested, expanded, splits, true);
        }
    }

    /** A here-document waiting for its body: the delimiter, whether tabs are stripped, whether the body expands. */
    private static final class Heredoc {
        final String delimiter;
        final boolean stripTabs;
        final boolean expands;
        /** The index in {@code out} of the command it feeds; -1 until that command ends. */
        int owner = -1;

        Heredoc(String delimiter, boolean stripTabs, boolean expands) {
            this.delimiter = delimiter;
            this.stripTabs = stripTabs;
            this.expands = expands;
        }
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
    private final List<Heredoc> pendingHeredocs = new ArrayList<>();
    private final Set<Integer> expandedWords = new LinkedHashSet<>();
    private final Set<Integer> splitWords = new LinkedHashSet<>();
    private final StringBuilder word = new StringBuilder();
    private boolean inWord;
    private boolean wordQuoted;
    /** The current word holds an expansion (parameter, substitution, arithmetic) or an unquoted {@code * ?}. */
    private boolean wordExpanded;
    /** The current word holds an unquoted expansion or glob, which the shell splits into words. */
    private boolean wordSplits;
    /** The current word holds an unquoted {@code [} (a glob when a {@code ]} follows). */
    private boolean wordBracket;
    /** The current word holds an unquoted {@code {} (a brace list when a {@code ,} or {@code ..} follows). */
    private boolean wordBrace;
    /** The current command evaluates text as arithmetic or as a variable name. */
    private boolean evaluates;
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
                case '$', '`' -> {
                    // outside double quotes an expansion is split into words
                    boolean before = wordExpanded;
                    wordExpanded = false;
                    if (c == '$') {
                        readDollar();
                    } else {
                        readBackticks();
                    }
                    wordSplits |= wordExpanded;
                    wordExpanded |= before;
                }
                case '<', '>' -> {
                    if (i + 1 < n && s.charAt(i + 1) == '(' && !inWord) {
                        String inner = readBalanced(i + 1);
                        nestedOfCurrent.addAll(parse(inner, depth + 1, pipelineCounter));
                        appendAll(c + "(…)");
                        wordExpanded = true;
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
                    if (c == '(' && !inWord && i + 1 < n && s.charAt(i + 1) == '('
                            && (words.isEmpty() || words.equals(List.of("for")))) {
                        // ((…)) and for ((…)) evaluate arithmetic; what is inside is still parsed as commands
                        // below (bash reads "((cmd) ; (cmd))" as subshells), this marker only says so
                        out.add(new SimpleCommand(List.of("(("), List.of(), pipeline, stage, List.of(), Set.of(),
                                Set.of(), true));
                    }
                    endCommand(false);
                    i++;
                }
                default -> {
                    if (c == '*' || c == '?') {
                        wordExpanded = true;
                        wordSplits = true;
                    } else if (c == '[') {
                        wordBracket = true;
                    } else if (c == '{') {
                        wordBrace = true;
                    }
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
            scanExpansions(inner);
            evaluates |= NAMES_A_VALUE.matcher(inner).find(); // $((1+2)) names no variable whose value could run
            wordExpanded = true;
            appendAll("$(" + inner + ")");
        } else if (next == '(') {
            String inner = readBalanced(i + 1);
            nestedOfCurrent.addAll(parse(inner, depth + 1, pipelineCounter));
            wordExpanded = true;
            appendAll("$(…)");
        } else if (next == '{') {
            int end = braceEnd(i + 2);
            if (end < 0) {
                throw new ParseException("unterminated ${…}");
            }
            String inner = s.substring(i + 2, end);
            scanExpansions(inner); // ${x:-$(cmd)} runs cmd
            evaluates |= evaluatingParameter(inner);
            wordExpanded = true;
            appendAll(s.substring(i, end + 1));
            i = end + 1;
        } else {
            if (next == '[') {
                evaluates = true; // $[…], the old arithmetic expansion
            }
            if (next == '[' || Character.isLetterOrDigit(next) || "_@*#?$!-".indexOf(next) >= 0 && next != 0) {
                wordExpanded = true;
            }
            append('$');
            i++;
        }
    }

    /**
     * {@code true} for the parameter expansions that evaluate text: a subscript ({@code ${a[i]}}, arithmetic), a
     * substring ({@code ${x:n}}, {@code ${x: -n}}, arithmetic) naming a variable or holding an expansion, and
     * indirection ({@code ${!x}}, a name taken from a value). {@code inner} is the text between {@code ${} and
     * {@code }}.
     */
    static boolean evaluatingParameter(String inner) {
        int k = inner.startsWith("#") && inner.length() > 1 ? 1 : 0;
        if (inner.startsWith("!", k)) {
            return true;
        }
        while (k < inner.length() && (Character.isLetterOrDigit(inner.charAt(k)) || inner.charAt(k) == '_')) {
            k++;
        }
        if (k == 0 && !inner.isEmpty() && "@*#?$!-".indexOf(inner.charAt(0)) >= 0) {
            k = 1;
        }
        if (k >= inner.length()) {
            return false;
        }
        char op = inner.charAt(k);
        boolean arithmetic = op == '[' || op == ':' && (k + 1 >= inner.length()
                || "-=+?".indexOf(inner.charAt(k + 1)) < 0);
        return arithmetic && NAMES_A_VALUE.matcher(inner.substring(k)).find();
    }

    /** The index of the {@code }} that closes a {@code ${} whose text starts at {@code from}; -1 if none. */
    private int braceEnd(int from) {
        int d = 1;
        int j = from;
        while (j < n) {
            char c = s.charAt(j);
            if (c == '\\') {
                j += 2;
            } else if (c == '\'' || c == '"') {
                int end = s.indexOf(c, j + 1);
                if (end < 0) {
                    return -1;
                }
                j = end + 1;
            } else if (c == '$' && j + 1 < n && s.charAt(j + 1) == '(') {
                int close = matchingParen(j + 1);
                if (close < 0) {
                    return -1;
                }
                j = close + 1;
            } else if (c == '$' && j + 1 < n && s.charAt(j + 1) == '{') {
                d++;
                j += 2;
            } else if (c == '}') {
                if (--d == 0) {
                    return j;
                }
                j++;
            } else {
                j++;
            }
        }
        return -1;
    }

    /**
     * Finds the substitutions the shell expands inside {@code text} (the inside of {@code ${…}} or {@code $((…))},
     * or an unquoted here-document body), adds their commands to the current command's nested ones and notes
     * arithmetic. Quotes are not honoured here (inside double quotes or a here-document they are plain characters),
     * so a substitution is found wherever it might run.
     */
    private void scanExpansions(String text) {
        ShellParser inner = scanned(text);
        nestedOfCurrent.addAll(inner.nestedOfCurrent);
        evaluates |= inner.evaluates;
    }

    private ShellParser scanned(String text) {
        ShellParser inner = new ShellParser(text, depth, pipelineCounter);
        while (inner.i < inner.n) {
            char c = inner.s.charAt(inner.i);
            if (c == '\\') {
                inner.i += 2;
            } else if (c == '$' && inner.i + 1 < inner.n && inner.s.charAt(inner.i + 1) == '\'') {
                inner.i++; // $'…' is not special here: what follows is scanned as well
            } else if (c == '$') {
                inner.readDollar();
            } else if (c == '`') {
                inner.readBackticks();
            } else {
                inner.i++;
            }
        }
        return inner;
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
        wordExpanded = true;
        appendAll("$(…)");
        i = j + 1;
    }

    /** Reads from the '(' at {@code open} to its matching ')' (quote-aware); returns the inside; moves past it. */
    private String readBalanced(int open) {
        int close = matchingParen(open);
        if (close == -2) {
            throw new ParseException("unterminated single quote");
        }
        if (close == -3) {
            throw new ParseException("unterminated double quote");
        }
        if (close < 0) {
            throw new ParseException("unbalanced parenthesis");
        }
        i = close + 1;
        return s.substring(open + 1, close);
    }

    /**
     * The index of the ')' matching the '(' at {@code open} (quote-aware); -2 for an unterminated single quote, -3
     * for an unterminated double quote, -1 when it is not closed.
     */
    private int matchingParen(int open) {
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
                    return -2;
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
                    return -3;
                }
                j++;
                continue;
            }
            if (c == '(') {
                d++;
            } else if (c == ')') {
                d--;
                if (d == 0) {
                    return j;
                }
            }
            j++;
        }
        return -1;
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
        boolean globbed = wordBracket && w.indexOf(']', w.indexOf('[') + 1) > 0
                || wordBrace && BRACE_LIST.matcher(w).find();
        boolean expanded = wordExpanded || globbed;
        boolean splits = wordSplits || globbed;
        word.setLength(0);
        inWord = false;
        wordQuoted = false;
        wordExpanded = false;
        wordSplits = false;
        wordBracket = false;
        wordBrace = false;
        if (pendingRedirect != null) {
            String op = pendingRedirect;
            pendingRedirect = null;
            if (op.equals(">&") && !(w.chars().allMatch(Character::isDigit) || w.equals("-"))) {
                op = "&>"; // '>& file' writes both streams to a file
            }
            redirects.add(new Redirect(op, w));
            if (op.startsWith("<<") && !op.equals("<<<")) {
                pendingHeredocs.add(new Heredoc(w, op.equals("<<-"), !quoted));
            }
            return;
        }
        if (words.isEmpty() && !quoted && SKIPPED_KEYWORDS.contains(w)) {
            return;
        }
        if (expanded) {
            expandedWords.add(words.size());
        }
        if (splits) {
            splitWords.add(words.size());
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
                    List.copyOf(nestedOfCurrent), expandedWords, splitWords, evaluates));
        } else if (header && evaluates) {
            // for x in $((…)): the header's words are data, but their arithmetic is evaluated all the same
            out.add(new SimpleCommand(List.copyOf(words), List.of(), pipeline, stage, List.copyOf(nestedOfCurrent),
                    expandedWords, splitWords, true));
        } else if (header && !nestedOfCurrent.isEmpty()) {
            out.addAll(nestedOfCurrent);
        }
        for (Heredoc h : pendingHeredocs) {
            if (h.owner < 0 && !out.isEmpty()) {
                h.owner = out.size() - 1;
            }
        }
        words.clear();
        redirects.clear();
        nestedOfCurrent.clear();
        expandedWords.clear();
        splitWords.clear();
        evaluates = false;
        if (pipeToNext) {
            stage++;
        } else {
            pipeline = pipelineCounter[0]++;
            stage = 0;
        }
    }

    /**
     * After a newline: reads the bodies of here-documents opened on the previous line. A body is data, but with an
     * unquoted delimiter the shell expands it: its substitutions are commands (added after the others) and its
     * arithmetic marks the command it feeds.
     */
    private void skipHeredocBodies() {
        for (Heredoc h : pendingHeredocs) {
            StringBuilder body = new StringBuilder();
            while (i < n) {
                int eol = s.indexOf('\n', i);
                String line = eol < 0 ? s.substring(i) : s.substring(i, eol);
                i = eol < 0 ? n : eol + 1;
                if ((h.stripTabs ? line.replaceFirst("^\t+", "") : line).equals(h.delimiter)) {
                    break;
                }
                body.append(line).append('\n');
            }
            if (h.expands) {
                ShellParser inner = scanned(body.toString());
                out.addAll(inner.nestedOfCurrent);
                if (inner.evaluates && h.owner >= 0) {
                    out.set(h.owner, out.get(h.owner).evaluating());
                }
            }
        }
        pendingHeredocs.clear();
    }
}
