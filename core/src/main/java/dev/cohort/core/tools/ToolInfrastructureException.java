package dev.cohort.core.tools;

/**
 * A failure that ends the turn (CONVENTIONS #6): the infrastructure a tool needs (tool runner, lead-service,
 * scheduler) is down after the client's own retries. The tool call is recorded with an error result so the
 * conversation stays valid, and the turn ends with reason {@code error}.
 */
public class ToolInfrastructureException extends RuntimeException {
    public ToolInfrastructureException(String message, Throwable cause) {
        super(message, cause);
    }
}
