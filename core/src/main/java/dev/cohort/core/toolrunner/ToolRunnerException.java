package dev.cohort.core.toolrunner;

/**
 * tool-runner-service could not be reached or refused the request itself (401, 400, 409, 5xx): an error that ends
 * the turn, unlike a model-visible {@link ToolCallResult#error()}.
 */
public class ToolRunnerException extends RuntimeException {
    private final int status;

    public ToolRunnerException(int status, String message, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    /** The HTTP status, or {@code 0} when no answer arrived. */
    public int status() {
        return status;
    }
}
