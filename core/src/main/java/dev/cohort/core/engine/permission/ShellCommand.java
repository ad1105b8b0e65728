package dev.cohort.core.engine.permission;

import dev.cohort.core.shell.ShellParser;
import java.util.ArrayList;
import java.util.List;

/**
 * A command line as the permission rules see it (seed gap 10.2#1: decide on tokens, never substrings): every simple
 * command, those inside {@code $(…)}, backticks, subshells and groups included, with its words after quote removal,
 * the targets it writes through redirections, and the command whose output it reads through a pipe. Tokenised by {@link ShellParser}, the
 * same parser the tool runner's command policy uses. Input that is not valid shell is reported as
 * {@link #parsed()} {@code false} with no commands: callers refuse it, as the tool runner does. Pure.
 */
public final class ShellCommand {

    /**
     * One simple command.
     *
     * @param words          the words after quote removal (the executable first)
     * @param writeTargets   targets of output redirections ({@code >}, {@code >>}, {@code 2>} …)
     * @param previous       the command before it in the same pipeline (it writes into this one's stdin), or
     *                       {@code null}
     */
    public record Simple(List<String> words, List<String> writeTargets, Simple previous) {
        /** The executable's base name, lower case ({@code /usr/bin/RM} → {@code rm}), or "" when none. */
        public String exe() {
            int i = firstWord();
            if (i >= words.size()) {
                return "";
            }
            String w = words.get(i);
            int slash = w.lastIndexOf('/');
            return (slash >= 0 ? w.substring(slash + 1) : w).toLowerCase();
        }

        /** The words after the executable. */
        public List<String> args() {
            int i = firstWord();
            return i + 1 >= words.size() ? List.of() : words.subList(i + 1, words.size());
        }

        /** The same command with other words (a wrapper removed: {@code xargs rm} → {@code rm}). */
        public Simple withWords(List<String> newWords) {
            return new Simple(newWords, writeTargets, previous);
        }

        private int firstWord() {
            int i = 0;
            while (i < words.size() && words.get(i).matches("[A-Za-z_][A-Za-z0-9_]*=.*")) {
                i++; // variable assignments before the command
            }
            return i;
        }
    }

    private final List<Simple> commands;
    private final boolean parsed;

    private ShellCommand(List<Simple> commands, boolean parsed) {
        this.commands = commands;
        this.parsed = parsed;
    }

    /** Every simple command, nested ones included, in order of appearance. */
    public List<Simple> commands() {
        return commands;
    }

    /** {@code false} when quoting was unbalanced or nesting too deep: treat the command as unknown. */
    public boolean parsed() {
        return parsed;
    }

    public static ShellCommand parse(String line) {
        List<ShellParser.SimpleCommand> all;
        try {
            all = ShellParser.flatten(ShellParser.parse(line == null ? "" : line));
        } catch (ShellParser.ParseException e) {
            return new ShellCommand(List.of(), false);
        }
        List<Simple> out = new ArrayList<>(all.size());
        for (ShellParser.SimpleCommand c : all) {
            Simple previous = null;
            if (c.stage() > 0) {
                for (int k = out.size() - 1; k >= 0 && previous == null; k--) {
                    ShellParser.SimpleCommand other = all.get(k);
                    if (other.pipeline() == c.pipeline() && other.stage() == c.stage() - 1) {
                        previous = out.get(k);
                    }
                }
            }
            List<String> writes = c.redirects().stream().filter(ShellParser.Redirect::writes)
                    .map(ShellParser.Redirect::target).toList();
            out.add(new Simple(List.copyOf(c.words()), writes, previous));
        }
        return new ShellCommand(List.copyOf(out), true);
    }
}
