package dev.cohort.core.shell;

/**
 * What {@link CommandRules#classify} says about one command line.
 *
 * @param rule   the rule that decided (its {@link CommandRule#kind()} is the verdict)
 * @param reason a sentence for the model (deny) or the approver (ask)
 */
public record CommandVerdict(CommandRule rule, String reason) {

    public CommandVerdict {
        if (rule == null) {
            throw new IllegalArgumentException("a verdict needs a rule");
        }
    }

    /** Allow, ask or deny. */
    public CommandRule.Kind kind() {
        return rule.kind();
    }

    /** {@code true} for a hard deny: never run, in any mode, at any layer. */
    public boolean hardDeny() {
        return rule.kind() == CommandRule.Kind.DENY;
    }

    /** {@code true} when every command only reads ({@code plan} mode runs it). */
    public boolean readOnly() {
        return rule == CommandRule.READ_ONLY;
    }
}
