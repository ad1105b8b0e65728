package dev.cohort.core.testing;

import dev.cohort.core.shell.CommandRule;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command rule set's decision table ({@code dev/cohort/core/shell/command-rules.tsv}): each row a command, the
 * cwd it runs in and the expected verdict with its rule. Shared with the tool runner's tests through core's test-jar,
 * so that every layer is tested against the same rows.
 */
public final class CommandTable {
    /** The workspace root every row runs in. */
    public static final Path ROOT = Path.of("/work/ws");
    private static final String RESOURCE = "/dev/cohort/core/shell/command-rules.tsv";

    /**
     * One row.
     *
     * @param line    its line in the file
     * @param rule    the expected rule (its kind is the expected verdict)
     * @param cwd     the working directory relative to {@link #ROOT} ({@code ""} for the root)
     * @param command the command line
     */
    public record Row(int line, CommandRule rule, String cwd, String command) {
        /** The absolute cwd. */
        public Path absoluteCwd() {
            return ROOT.resolve(cwd).normalize();
        }

        @Override
        public String toString() {
            return "line " + line + ": " + command.replace("\n", "\\n").replace("\t", "\\t").replace("\0", "\\0")
                    + (cwd.isEmpty() ? "" : " (in " + cwd + ")") + " -> " + rule.kind() + " " + rule.id();
        }
    }

    private CommandTable() {
    }

    /** Every row of the table; a malformed row fails with its line number. */
    public static List<Row> rows() {
        try (InputStream in = CommandTable.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not on the classpath");
            }
            String[] lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n", -1);
            List<Row> rows = new ArrayList<>();
            for (int i = 0; i < lines.length; i++) {
                String l = lines[i];
                if (l.isBlank() || l.startsWith("#")) {
                    continue;
                }
                String[] cols = l.split("\t", 4);
                if (cols.length != 4) {
                    throw new IllegalStateException(RESOURCE + " line " + (i + 1) + ": expected 4 tab-separated columns");
                }
                CommandRule rule = CommandRule.of(cols[1]);
                if (!rule.kind().name().equals(cols[0])) {
                    throw new IllegalStateException(RESOURCE + " line " + (i + 1) + ": rule " + rule.id() + " is a "
                            + rule.kind() + ", not a " + cols[0]);
                }
                String cwd = cols[2].equals(".") ? "" : cols[2];
                rows.add(new Row(i + 1, rule, cwd, unescape(cols[3])));
            }
            return rows;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + RESOURCE, e);
        }
    }

    /** {@code \t}, {@code \n}, {@code \0} and {@code \\} are escapes; any other backslash is literal. */
    static String unescape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char n = s.charAt(i + 1);
                switch (n) {
                    case 't' -> b.append('\t');
                    case 'n' -> b.append('\n');
                    case '0' -> b.append('\0');
                    case '\\' -> b.append('\\');
                    default -> {
                        b.append(c);
                        continue;
                    }
                }
                i++;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
