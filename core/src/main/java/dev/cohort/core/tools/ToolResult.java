package dev.cohort.core.tools;

import java.util.ArrayList;
import java.util.List;

/**
 * What a tool call gives back to the model: the text of the tool message and whether it is an error.
 *
 * @param content the tool message content (never null; empty output is said in words)
 * @param error   {@code true} for a model-visible failure
 * @param rule    for an error: the rule or check that produced it (e.g. {@code allowlist}, {@code schema},
 *                {@code permission:hard-deny:sudo}), for events and logs; {@code null} otherwise
 * @param effects what the call changed that the engine or host acts on ({@link ToolEffect}); empty for most calls
 */
public record ToolResult(String content, boolean error, String rule, List<ToolEffect> effects) {

    public ToolResult {
        content = content == null || content.isEmpty() ? "(no output)" : content;
        effects = effects == null ? List.of() : List.copyOf(effects);
    }

    public ToolResult(String content, boolean error, String rule) {
        this(content, error, rule, List.of());
    }

    /** The same result reporting one more effect. */
    public ToolResult with(ToolEffect effect) {
        List<ToolEffect> all = new ArrayList<>(effects);
        all.add(effect);
        return new ToolResult(content, error, rule, all);
    }

    /** The same result with other effects (e.g. a hook's rewrite keeps the tool's effects). */
    public ToolResult withEffects(List<ToolEffect> e) {
        return new ToolResult(content, error, rule, e);
    }

    public static ToolResult ok(String content) {
        return new ToolResult(content, false, null);
    }

    /** A model-visible failure; the content names the rule so the model can change its plan. */
    public static ToolResult error(String rule, String message) {
        return new ToolResult("Error: " + message, true, rule);
    }
}
