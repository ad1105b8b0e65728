package dev.cohort.core.engine.hooks;

import dev.cohort.core.tools.ToolContext;

/** Rewrites a user prompt before it enters the conversation; hooks are chained. */
public interface UserPromptSubmitHook extends Hook {
    /** The new prompt, or {@code null} to leave it unchanged. */
    String onUserPrompt(String prompt, ToolContext ctx);
}
