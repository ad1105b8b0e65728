package dev.cohort.toolrunner.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.mcp.McpToolInfo;
import dev.cohort.core.protocol.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The client side of MCP on one {@link McpConnection}, speaking both generations: it first asks
 * {@code server/discover} with the stateless revision ({@value #MODERN}) in {@code _meta}; a server that lists that
 * revision is spoken to statelessly (the version in every request's {@code _meta}, no handshake), any other answer
 * (an error, -32601 from a server of 2025) leads to the {@code initialize} handshake with {@value #LEGACY}.
 */
final class McpClientSession {
    static final String MODERN = "2026-07-28";
    static final String LEGACY = "2025-11-25";
    static final String META_VERSION = "io.modelcontextprotocol/protocolVersion";
    /** Pages of {@code tools/list} read at most. */
    static final int MAX_PAGES = 20;

    private final String server;
    private final McpConnection connection;
    private final String version;

    private McpClientSession(String server, McpConnection connection, String version) {
        this.server = server;
        this.connection = connection;
        this.version = version;
    }

    /** Opens MCP on {@code connection}: the stateless revision when the server speaks it, else the handshake. */
    static McpClientSession open(String server, McpConnection connection, Duration timeout)
            throws McpException, InterruptedException {
        try {
            JsonNode d = connection.request("server/discover", meta(Json.MAPPER.createObjectNode()), timeout);
            for (JsonNode v : d.path("supportedVersions")) {
                if (MODERN.equals(v.asText())) {
                    if (connection instanceof HttpConnection h) {
                        h.protocolVersion(MODERN);
                    }
                    return new McpClientSession(server, connection, MODERN);
                }
            }
        } catch (McpException.Closed | McpException.Timeout e) {
            throw e; // a server must answer even a method it does not know
        } catch (McpException e) {
            // a server of 2025: -32601 (or an HTTP 400 without a session): the handshake follows
        }
        ObjectNode init = Json.MAPPER.createObjectNode().put("protocolVersion", LEGACY);
        init.putObject("capabilities").putObject("roots").put("listChanged", false);
        init.putObject("clientInfo").put("name", "cohort").put("version", "1.0");
        JsonNode r = connection.request("initialize", init, timeout);
        String agreed = r.path("protocolVersion").asText(LEGACY);
        if (connection instanceof HttpConnection h) {
            h.protocolVersion(agreed);
        }
        connection.notify("notifications/initialized", null);
        return new McpClientSession(server, connection, agreed);
    }

    /** The protocol revision spoken. */
    String version() {
        return version;
    }

    McpConnection connection() {
        return connection;
    }

    private static ObjectNode meta(ObjectNode params) {
        params.putObject("_meta").put(META_VERSION, MODERN);
        return params;
    }

    private ObjectNode params() {
        ObjectNode p = Json.MAPPER.createObjectNode();
        return MODERN.equals(version) ? meta(p) : p;
    }

    /** Every tool the server lists ({@code tools/list}, page after page). */
    List<McpToolInfo> listTools(Duration timeout) throws McpException, InterruptedException {
        List<McpToolInfo> tools = new ArrayList<>();
        String cursor = null;
        for (int page = 0; page < MAX_PAGES; page++) {
            ObjectNode p = params();
            if (cursor != null) {
                p.put("cursor", cursor);
            }
            JsonNode r = connection.request("tools/list", p, timeout);
            for (JsonNode t : r.path("tools")) {
                if (!t.path("name").isTextual()) {
                    continue;
                }
                tools.add(new McpToolInfo(t.path("name").asText(), t.path("description").asText(null),
                        t.get("inputSchema"), t.path("annotations").path("readOnlyHint").asBoolean(false)));
            }
            cursor = r.path("nextCursor").asText(null);
            if (cursor == null || cursor.isEmpty()) {
                break;
            }
        }
        return tools;
    }

    /** Calls tool {@code name}; the raw result ({@code content}, {@code structuredContent}, {@code isError}). */
    JsonNode callTool(String name, JsonNode arguments, Duration timeout) throws McpException, InterruptedException {
        ObjectNode p = params().put("name", name);
        p.set("arguments", arguments == null ? Json.MAPPER.createObjectNode() : arguments);
        return connection.request("tools/call", p, timeout);
    }

    /**
     * The result of a JSON-RPC answer to {@code method}.
     *
     * @throws McpException with the server's error code and message, or -32600 for an answer that is neither
     */
    static JsonNode resultOf(String server, String method, JsonNode answer) throws McpException {
        if (answer == null || !answer.isObject()) {
            throw new McpException(-32600, "MCP server '" + server + "' answered " + method + " with something that"
                    + " is not a JSON-RPC message");
        }
        JsonNode error = answer.get("error");
        if (error != null && !error.isNull()) {
            int code = error.path("code").asInt(-32603);
            String msg = error.path("message").asText("(no message)");
            if (msg.length() > 1000) {
                msg = msg.substring(0, 1000) + " …";
            }
            throw new McpException(code, "MCP server '" + server + "' answered " + method + " with error " + code
                    + ": " + msg);
        }
        JsonNode result = answer.get("result");
        if (result == null || !result.isObject()) {
            throw new McpException(-32600, "MCP server '" + server + "' answered " + method + " without a result");
        }
        return result;
    }
}
