package dev.cohort.toolrunner.calls;

import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.ToolError;
import dev.cohort.toolrunner.workspace.ToolContext;
import java.util.Set;

/** One tool of the runner. Adding a tool = one class implementing this (+ its test); the registry finds it. */
public interface Tool {
    /** The name the model calls it by (seed names). */
    String name();

    /** The argument names it accepts; others are a model-visible error. */
    Set<String> arguments();

    /** {@code true} when it changes the workspace. */
    boolean isMutating();

    /**
     * {@code true} when a read-only call ({@link ToolContext#readOnly()}, plan mode) may still run it, because what it
     * does is confined by read-only mounts ({@code bash}); every other mutating tool is refused in such a call.
     */
    default boolean runsUnderReadOnlyMounts() {
        return !isMutating();
    }

    /**
     * Runs the tool. A model-visible failure is thrown as {@link ToolError} (or returned with {@code error} set);
     * {@code durationMs} of the result is filled in by the caller.
     */
    ToolCallResult execute(ToolContext ctx, Args args) throws Exception;
}
