package dev.cohort.core.engine.hooks;

/**
 * Where {@link Hooks} reports a hook that failed (the engine makes each report an {@code error} event of the turn).
 * Must not throw.
 */
@FunctionalInterface
public interface HookReporter {
    HookReporter NONE = (event, hook, message, blocked) -> {
    };

    /**
     * @param event   the hook event ({@code PreToolUse}, {@code PostToolUse}, {@code UserPromptSubmit}, {@code Stop},
     *                {@code SubagentStop}, {@code PreCompact})
     * @param hook    the hook's {@link Hook#name()}
     * @param message what went wrong
     * @param blocked {@code true} when a tool call was refused because of it (PreToolUse fails closed)
     */
    void failed(String event, String hook, String message, boolean blocked);
}
