package dev.cohort.core.toolrunner;

/**
 * tool-runner-service could not be reached or refused the request itself (401, 400, 409, 5xx): an error that ends
 * the turn, unlike a model-visible {@link ToolCallResult#error()}.
 */
public class ToolRunnerException extends RuntimeException {
    private final int status;
    private final String detail;

    public ToolRunnerException(int status, String message, Throwable cause) {
        this(status, message, null, cause);
    }

    /** @param detail the runner's own explanation (the problem's {@code detail}), when it answered */
    public ToolRunnerException(int status, String message, String detail, Throwable cause) {
        super(message, cause);
        this.status = status;
        this.detail = detail;
    }

    /** What the runner said (e.g. the rule that refused a workspace), or the whole message when it did not answer. */
    public String detail() {
        return detail != null ? detail : getMessage();
    }

    /** The HTTP status, or {@code 0} when no answer arrived. */
    public int status() {
        return status;
    }
}
