package dev.cohort.core.engine.hooks;

/**
 * A hook could not give an answer (a command hook timed out, crashed, exited with a code other than 0 or 2, or the
 * tool runner could not run it). {@link Hooks} reports it as an {@code error} event; a PreToolUse hook that fails
 * blocks its call (fail closed), any other is skipped.
 */
public class HookFailedException extends RuntimeException {
    public HookFailedException(String message) {
        super(message);
    }

    public HookFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
