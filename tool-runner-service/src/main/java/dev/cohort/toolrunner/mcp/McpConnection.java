package dev.cohort.toolrunner.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;

/** One JSON-RPC 2.0 connection to an MCP server: a process's stdio ({@link StdioConnection}) or streamable HTTP. */
interface McpConnection extends AutoCloseable {

    /**
     * Sends request {@code method} and waits for its result.
     *
     * @throws McpException the server's error (with its code), no answer within {@code timeout}
     *                      ({@link McpException.Timeout}) or the connection gone ({@link McpException.Closed})
     */
    JsonNode request(String method, ObjectNode params, Duration timeout) throws McpException, InterruptedException;

    /** Sends notification {@code method}; a connection that is gone drops it. */
    void notify(String method, ObjectNode params);

    /** {@code false} once the connection is gone (the process exited). */
    boolean alive();

    /** What the connection last reported of itself, for messages (an exit code); never output that may hold secrets. */
    String state();

    @Override
    void close();
}
