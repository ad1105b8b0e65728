package dev.cohort.toolrunner;

/**
 * A failure the model should see (CONVENTIONS #6): it becomes the {@code error} of a normal 200 result and names
 * the rule that applied, so the model can correct itself.
 */
public class ToolError extends RuntimeException {
    private final String rule;

    public ToolError(String rule, String message) {
        super(message);
        this.rule = rule;
    }

    /** The rule's short name ({@code workspace-containment}, {@code bad-argument}, …). */
    public String rule() {
        return rule;
    }

    /** The message for the model: what went wrong and which rule applied. */
    public String modelMessage() {
        return getMessage() + " (rule: " + rule + ")";
    }

    public static ToolError badArgument(String message) {
        return new ToolError("bad-argument", message);
    }
}
