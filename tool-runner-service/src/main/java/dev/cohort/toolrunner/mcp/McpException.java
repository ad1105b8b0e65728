package dev.cohort.toolrunner.mcp;

/**
 * An MCP exchange that did not give a result: the server answered a JSON-RPC error ({@link #code()}), did not answer
 * in time, went away, or spoke something that is not MCP. The message names what happened and never a secret.
 */
public class McpException extends Exception {
    /** No JSON-RPC error code: the server did not answer (timeout, exit, transport failure). */
    public static final int NO_ANSWER = 0;

    private final int code;

    public McpException(int code, String message) {
        super(message);
        this.code = code;
    }

    public McpException(String message, Throwable cause) {
        super(message, cause);
        this.code = NO_ANSWER;
    }

    /** The JSON-RPC error code, or {@link #NO_ANSWER}. */
    public int code() {
        return code;
    }

    /** The server did not answer within the time given. */
    public static final class Timeout extends McpException {
        public Timeout(String message) {
            super(NO_ANSWER, message);
        }
    }

    /** The connection is gone (the process exited, the stream closed). */
    public static final class Closed extends McpException {
        public Closed(String message) {
            super(NO_ANSWER, message);
        }
    }
}
