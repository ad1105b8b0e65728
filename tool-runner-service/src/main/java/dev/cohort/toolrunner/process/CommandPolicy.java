package dev.cohort.toolrunner.process;

import dev.cohort.core.shell.CommandRules;
import dev.cohort.core.shell.CommandVerdict;
import dev.cohort.core.shell.ShellParser;
import dev.cohort.core.shell.ShellParser.SimpleCommand;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The runner's last line of defence (the engine's permission gate comes first): every <b>hard deny</b> of the one
 * command rule set, {@link CommandRules} in core, is refused here, whatever the engine said; everything else runs
 * (an ask was already asked by the engine). There are no rules of the runner's own: the engine and the runner
 * cannot disagree. Pure.
 */
public final class CommandPolicy {

    /**
     * A decision: run, or refuse by a named rule with a reason for the model.
     *
     * @param allowed {@code false} for a hard deny
     * @param rule    the rule of the verdict ({@code recursive-delete-of-protected-path}, {@code read-only}, …)
     * @param reason  why
     */
    public record Decision(boolean allowed, String rule, String reason) {
        static Decision of(CommandVerdict v) {
            return new Decision(!v.hardDeny(), v.rule().id(), v.reason());
        }
    }

    /** Where the command runs, for rules about the workspace root. */
    public record Context(Path workspaceRoot, Path cwd) {
    }

    private CommandPolicy() {
    }

    /** Decides whether {@code command} may run in {@code ctx}: refused exactly when the rule set hard-denies it. */
    public static Decision decide(String command, Context ctx) {
        return Decision.of(CommandRules.classify(command, CommandRules.Workspace.of(ctx.workspaceRoot(), ctx.cwd())));
    }

    /**
     * The slow-command heuristic (word-bounded): {@code true} when a simple command of {@code command} starts
     * with one of {@code patterns} (word sequences, e.g. {@code "npm run build"}), after wrappers.
     */
    public static boolean isSlow(String command, List<List<String>> patterns) {
        List<SimpleCommand> all;
        try {
            all = ShellParser.flatten(ShellParser.parse(command));
        } catch (ShellParser.ParseException e) {
            return false;
        }
        for (SimpleCommand c : all) {
            Optional<CommandRules.Invocation> found = CommandRules.invocation(c.words());
            if (found.isEmpty()) {
                continue;
            }
            CommandRules.Invocation inv = found.get();
            for (List<String> p : patterns) {
                if (p.isEmpty() || !CommandRules.exeName(p.get(0)).equals(inv.exe())
                        || inv.args().size() < p.size() - 1) {
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
