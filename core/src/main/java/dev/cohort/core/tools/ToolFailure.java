package dev.cohort.core.tools;

/** A failure the model should see (CONVENTIONS #6), thrown from a tool: it becomes an error {@link ToolResult}. */
public class ToolFailure extends RuntimeException {
    private final String rule;

    public ToolFailure(String rule, String message) {
        super(message);
        this.rule = rule;
    }

    /** The rule or check that failed, e.g. {@code not-found}. */
    public String rule() {
        return rule;
    }

    public ToolResult toResult() {
        return ToolResult.error(rule, getMessage());
    }
}
