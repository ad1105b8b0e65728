package dev.cohort.core.shell;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A sed script read the way GNU sed compiles it, for what its commands do: {@code e} runs a command (its text, or the
 * pattern space), {@code s///e} runs the pattern space, {@code w}/{@code W} and {@code s///w} write a file;
 * everything else reads and prints. A script this reader does not fully understand is not read-only.
 *
 * @param readOnly {@code true} when every command of the script is understood and only reads and prints
 * @param executed the command lines the script's {@code e} commands run, as far as they can be seen
 */
record SedScript(boolean readOnly, List<String> executed) {

    /** {@code e command} after a command separator or an address, for a script the reader gave up on. */
    private static final Pattern LOOSE_E = Pattern.compile("(?:^|[;\n{}!0-9$/])\\s*e[ \t]+([^\n]+)");

    /** Reads {@code script} (several {@code -e} scripts are joined with newlines, as sed does). */
    static SedScript of(String script) {
        Reader r = new Reader(script);
        boolean understood = r.read();
        List<String> executed = new ArrayList<>(r.executed);
        if (!understood) {
            // whatever sed makes of it, an 'e' command that can be seen is judged as the command it runs
            Matcher m = LOOSE_E.matcher(script);
            while (m.find()) {
                executed.add(m.group(1).strip());
            }
        }
        return new SedScript(understood && r.readOnly, List.copyOf(executed));
    }

    /** The reader: a cursor over the script. */
    private static final class Reader {
        private final String s;
        private int i;
        private int blocks;
        private boolean readOnly = true;
        private final List<String> executed = new ArrayList<>();

        Reader(String s) {
            this.s = s;
        }

        private int peek() {
            return i < s.length() ? s.charAt(i) : -1;
        }

        private void skipBlanks() {
            while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
                i++;
            }
        }

        /** {@code false} when the script is not understood. */
        boolean read() {
            while (true) {
                while (i < s.length() && (Character.isWhitespace(s.charAt(i)) || s.charAt(i) == ';')) {
                    i++;
                }
                if (i >= s.length()) {
                    return blocks == 0;
                }
                if (s.charAt(i) == '#') {
                    skipLine();
                    continue;
                }
                if (!address()) {
                    return false;
                }
                skipBlanks();
                if (peek() == ',') {
                    i++;
                    skipBlanks();
                    int second = i;
                    if (!address() || i == second) {
                        return false; // a comma without a second address
                    }
                    skipBlanks();
                }
                if (peek() == '!') {
                    i++;
                    skipBlanks();
                }
                if (i >= s.length() || !command(s.charAt(i++))) {
                    return false;
                }
            }
        }

        /** An optional address: a line number (with ~step), $, /regex/ or \cregexc with I/M flags, +N, ~N. */
        private boolean address() {
            int c = peek();
            if (c == '/' || c == '\\') {
                i++;
                int delimiter = c;
                if (c == '\\') {
                    if (i >= s.length() || s.charAt(i) == '\n' || s.charAt(i) == '\\') {
                        return false;
                    }
                    delimiter = s.charAt(i++);
                }
                if (!delimited((char) delimiter)) {
                    return false;
                }
                while (true) {
                    skipBlanks();
                    if (peek() == 'I' || peek() == 'M') {
                        i++;
                    } else {
                        return true;
                    }
                }
            }
            if (c == '$') {
                i++;
                return true;
            }
            if (c == '+' || c == '~') {
                i++;
                return digits() > 0;
            }
            if (c >= '0' && c <= '9') {
                digits();
                if (peek() == '~') {
                    i++;
                    digits();
                }
            }
            return true;
        }

        private int digits() {
            int start = i;
            while (i < s.length() && Character.isDigit(s.charAt(i))) {
                i++;
            }
            return i - start;
        }

        /** Reads up to an unescaped {@code delimiter} on the same line (sed's match_slash); false if none. */
        private boolean delimited(char delimiter) {
            while (i < s.length()) {
                char c = s.charAt(i++);
                if (c == '\n') {
                    return false;
                }
                if (c == delimiter) {
                    return true;
                }
                if (c == '\\') {
                    if (i >= s.length()) {
                        return false;
                    }
                    i++; // the escaped character, a newline included
                }
            }
            return false;
        }

        private boolean command(char c) {
            switch (c) {
                case '{' -> {
                    blocks++;
                    return true;
                }
                case '}' -> {
                    if (--blocks < 0) {
                        return false;
                    }
                    return endOfCommand();
                }
                case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F' -> {
                    return endOfCommand();
                }
                case 'l', 'q', 'Q' -> {
                    skipBlanks();
                    digits();
                    return endOfCommand();
                }
                case 'a', 'i', 'c' -> {
                    text();
                    return true;
                }
                case ':', 'b', 't', 'T', 'v' -> {
                    label();
                    return true;
                }
                case 'r', 'R' -> {
                    skipLine(); // a file name to the end of the line: read
                    return true;
                }
                case 'w', 'W' -> {
                    readOnly = false;
                    skipLine();
                    return true;
                }
                case 'e' -> {
                    readOnly = false;
                    String command = text();
                    if (!command.isBlank()) {
                        executed.add(command.strip());
                    }
                    return true;
                }
                case 'y' -> {
                    if (i >= s.length() || s.charAt(i) == '\n' || s.charAt(i) == '\\') {
                        return false;
                    }
                    char d = s.charAt(i++);
                    return delimited(d) && delimited(d) && endOfCommand();
                }
                case 's' -> {
                    if (i >= s.length() || s.charAt(i) == '\n' || s.charAt(i) == '\\') {
                        return false;
                    }
                    char d = s.charAt(i++);
                    return delimited(d) && delimited(d) && substitutionFlags();
                }
                default -> {
                    return false;
                }
            }
        }

        /** s///flags: e runs the pattern space, w FILE writes; nothing else may follow on the line. */
        private boolean substitutionFlags() {
            while (true) {
                int c = peek();
                if (c == -1 || c == '\n' || c == ';') {
                    return true;
                }
                if (c == '}' || c == '#') {
                    return true; // read next, as the next command
                }
                i++;
                if (c == 'w') {
                    readOnly = false;
                    skipLine();
                    return true;
                }
                if (c == 'e') {
                    readOnly = false;
                } else if ("gpiImM0123456789".indexOf(c) < 0) {
                    return false;
                }
            }
        }

        /** Blanks, then the end of the command: the end, a newline, {@code ;}, or a {@code }} or {@code #} next. */
        private boolean endOfCommand() {
            skipBlanks();
            int c = peek();
            if (c == -1 || c == '\n' || c == ';') {
                if (c != -1) {
                    i++;
                }
                return true;
            }
            return c == '}' || c == '#';
        }

        /** The text of a/i/c/e: to the end of the line, a backslash escaping the next character (a newline too). */
        private String text() {
            skipBlanks();
            if (peek() == '\\') {
                i++;
                if (peek() == '\n') {
                    i++;
                }
            }
            StringBuilder b = new StringBuilder();
            while (i < s.length() && s.charAt(i) != '\n') {
                if (s.charAt(i) == '\\' && i + 1 < s.length()) {
                    i++;
                }
                b.append(s.charAt(i++));
            }
            return b.toString();
        }

        /** A label (or v's version): blanks, then up to a blank, {@code ;} or the end of the line. */
        private void label() {
            skipBlanks();
            while (i < s.length() && !Character.isWhitespace(s.charAt(i)) && s.charAt(i) != ';') {
                i++;
            }
        }

        private void skipLine() {
            while (i < s.length() && s.charAt(i) != '\n') {
                i++;
            }
        }
    }
}
