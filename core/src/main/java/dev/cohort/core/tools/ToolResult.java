package dev.cohort.core.tools;

/**
 * What a tool call gives back to the model: the text of the tool message and whether it is an error.
 *
 * @param content the tool message content (never null; empty output is said in words)
 * @param error   {@code true} for a model-visible failure
 * @param rule    for an error: the rule or check that produced it (e.g. {@code allowlist}, {@code schema},
 *                {@code permission:hard-deny:sudo}), for events and logs; {@code null} otherwise
 */
public record ToolResult(String content, boolean error, String rule) {

    public ToolResult {
        content = content == null || content.isEmpty() ? "(no output)" : content;
    }

    public static ToolResult ok(String content) {
        return new ToolResult(content, false, null);
    }

    /** A model-visible failure; the content names the rule so the model can change its plan. */
    public static ToolResult error(String rule, String message) {
        return new ToolResult("Error: " + message, true, rule);
    }
}
