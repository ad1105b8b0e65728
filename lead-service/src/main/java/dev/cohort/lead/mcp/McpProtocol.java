package dev.cohort.lead.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jboss.logging.Logger;

/**
 * The Model Context Protocol as Cohort serves it: JSON-RPC 2.0 messages, one per HTTP POST, answered with JSON. Both
 * protocol generations are spoken on the same endpoint, and neither keeps state between requests:
 * <ul>
 * <li><b>2025-11-25</b> (and 2025-06-18, 2025-03-26): {@code initialize} answers the version the client asked for when
 * it is one of these (else the newest), the capabilities and the server's identity; no session is issued, so every
 * later request stands alone; {@code notifications/*} are accepted (HTTP 202).</li>
 * <li><b>2026-07-28</b>: a request that names its version in {@code _meta["io.modelcontextprotocol/protocolVersion"]}
 * needs no {@code initialize}; {@code server/discover} answers versions, capabilities and identity; every result
 * carries {@code resultType: "complete"}; a modern version this server does not speak is error -32022 with the versions
 * it does; an {@code Mcp-Method} header that is not the body's method is error -32020.</li>
 * </ul>
 * Methods: {@code initialize}, {@code server/discover}, {@code ping}, {@code tools/list}, {@code tools/call}. Anything
 * else is -32601. A tool's own failure is a result with {@code isError: true}, for the model to read; an unknown tool or
 * arguments that do not fit its schema are -32602.
 */
public final class McpProtocol {

    private static final Logger LOG = Logger.getLogger(McpProtocol.class);

    /** The newest legacy (initialize) revision, answered to a client asking for one this server does not know. */
    public static final String LEGACY_LATEST = "2025-11-25";
    /** The stateless revision. */
    public static final String MODERN = "2026-07-28";
    /** The revisions spoken with an initialize handshake. */
    public static final List<String> LEGACY = List.of("2025-11-25", "2025-06-18", "2025-03-26");
    /** Every revision spoken, newest first. */
    public static final List<String> SUPPORTED = List.of(MODERN, "2025-11-25", "2025-06-18", "2025-03-26");

    static final String META_VERSION = "io.modelcontextprotocol/protocolVersion";

    public static final int PARSE_ERROR = -32700;
    public static final int INVALID_REQUEST = -32600;
    public static final int METHOD_NOT_FOUND = -32601;
    public static final int INVALID_PARAMS = -32602;
    public static final int INTERNAL_ERROR = -32603;
    public static final int HEADER_MISMATCH = -32020;
    public static final int UNSUPPORTED_PROTOCOL_VERSION = -32022;

    /** What this server offers: its tools, and how to call one. */
    public interface Tools {
        /** The tools as {@code tools/list} shows them: {@code name}, {@code description}, {@code inputSchema}. */
        List<ObjectNode> list();

        /**
         * Calls tool {@code name}; its result ({@code content}, {@code structuredContent}, {@code isError}).
         *
         * @throws InvalidParams an unknown tool, or arguments its schema does not allow
         */
        ObjectNode call(String name, JsonNode arguments);
    }

    /** A request the protocol refuses as invalid params (-32602), with a message that says what is wrong. */
    public static final class InvalidParams extends RuntimeException {
        public InvalidParams(String message) {
            super(message);
        }
    }

    /**
     * The answer to one HTTP POST: the status and the JSON-RPC message to send back ({@code null}: none, HTTP 202).
     */
    public record Reply(int status, ObjectNode body) {
        static Reply accepted() {
            return new Reply(202, null);
        }
    }

    private final String serverName;
    private final String serverVersion;
    private final String instructions;
    private final Tools tools;

    public McpProtocol(String serverName, String serverVersion, String instructions, Tools tools) {
        this.serverName = Objects.requireNonNull(serverName, "serverName");
        this.serverVersion = Objects.requireNonNull(serverVersion, "serverVersion");
        this.instructions = instructions;
        this.tools = Objects.requireNonNull(tools, "tools");
    }

    /**
     * Answers one POSTed body.
     *
     * @param body          the request's body as sent
     * @param versionHeader the {@code MCP-Protocol-Version} header, or {@code null}
     * @param methodHeader  the {@code Mcp-Method} header, or {@code null}
     */
    public Reply handle(String body, String versionHeader, String methodHeader) {
        JsonNode msg;
        try {
            msg = Json.MAPPER.readTree(body == null ? "" : body);
        } catch (Exception e) {
            return new Reply(400, error(null, PARSE_ERROR, "the body is not JSON: " + clip(e.getMessage()), null));
        }
        if (msg == null || msg.isMissingNode()) {
            return new Reply(400, error(null, PARSE_ERROR, "the body is empty", null));
        }
        if (msg.isArray()) {
            return new Reply(400, error(null, INVALID_REQUEST, "batches are not accepted: send one message per POST",
                    null));
        }
        if (!msg.isObject() || !"2.0".equals(msg.path("jsonrpc").asText(null))) {
            return new Reply(400, error(idOf(msg), INVALID_REQUEST, "not a JSON-RPC 2.0 message", null));
        }
        JsonNode id = msg.get("id");
        JsonNode method = msg.get("method");
        if (method == null) {
            // a response or an error from the client: this server sends no requests, so nothing waits for it
            return msg.has("result") || msg.has("error") ? Reply.accepted()
                    : new Reply(400, error(id, INVALID_REQUEST, "a message without a method", null));
        }
        if (!method.isTextual()) {
            return new Reply(400, error(id, INVALID_REQUEST, "\"method\" must be a string", null));
        }
        String name = method.asText();
        if (id == null) {
            // a notification (initialized, cancelled, …): nothing to answer
            return Reply.accepted();
        }
        if (!id.isTextual() && !id.isIntegralNumber()) {
            return new Reply(400, error(null, INVALID_REQUEST, "\"id\" must be a string or an integer", null));
        }
        if (methodHeader != null && !methodHeader.equals(name)) {
            return new Reply(400, error(id, HEADER_MISMATCH, "the Mcp-Method header says \"" + methodHeader
                    + "\" but the body's method is \"" + name + "\"", null));
        }
        JsonNode params = msg.get("params");
        if (params != null && !params.isObject()) {
            return new Reply(200, error(id, INVALID_PARAMS, "\"params\" must be an object", null));
        }
        String modern = params == null ? null : params.path("_meta").path(META_VERSION).asText(null);
        if (modern != null && !SUPPORTED.contains(modern)) {
            ObjectNode data = Json.MAPPER.createObjectNode();
            data.set("supported", Json.MAPPER.valueToTree(SUPPORTED));
            data.put("requested", modern);
            return new Reply(400, error(id, UNSUPPORTED_PROTOCOL_VERSION, "protocol version " + modern
                    + " is not supported; this server speaks " + SUPPORTED, data));
        }
        if (modern == null && versionHeader != null && !SUPPORTED.contains(versionHeader)) {
            return new Reply(400, error(id, UNSUPPORTED_PROTOCOL_VERSION, "MCP-Protocol-Version " + versionHeader
                    + " is not supported; this server speaks " + SUPPORTED, null));
        }
        boolean stateless = MODERN.equals(modern);
        try {
            ObjectNode result = switch (name) {
                case "initialize" -> initialize(params);
                case "server/discover" -> discover();
                case "ping" -> Json.MAPPER.createObjectNode();
                case "tools/list" -> toolsList();
                case "tools/call" -> toolsCall(params);
                default -> null;
            };
            if (result == null) {
                return new Reply(200, error(id, METHOD_NOT_FOUND, "method \"" + name + "\" is not offered; this server"
                        + " offers initialize, server/discover, ping, tools/list and tools/call", null));
            }
            if (stateless || "server/discover".equals(name)) {
                result.put("resultType", "complete");
            }
            ObjectNode out = Json.MAPPER.createObjectNode();
            out.put("jsonrpc", "2.0");
            out.set("id", id);
            out.set("result", result);
            return new Reply(200, out);
        } catch (InvalidParams e) {
            return new Reply(200, error(id, INVALID_PARAMS, e.getMessage(), null));
        } catch (RuntimeException e) {
            // the server's own failure (its database or broker away): the client gets a JSON-RPC error, not a 500 page
            LOG.errorf(e, "MCP %s failed", name);
            return new Reply(200, error(id, INTERNAL_ERROR, name + " failed inside the server ("
                    + e.getClass().getSimpleName() + "); try it again later", null));
        }
    }

    private ObjectNode initialize(JsonNode params) {
        String asked = params == null ? null : params.path("protocolVersion").asText(null);
        ObjectNode r = Json.MAPPER.createObjectNode();
        r.put("protocolVersion", asked != null && LEGACY.contains(asked) ? asked : LEGACY_LATEST);
        r.set("capabilities", capabilities());
        r.set("serverInfo", serverInfo());
        if (instructions != null) {
            r.put("instructions", instructions);
        }
        return r;
    }

    private ObjectNode discover() {
        ObjectNode r = Json.MAPPER.createObjectNode();
        r.set("supportedVersions", Json.MAPPER.valueToTree(SUPPORTED));
        r.set("capabilities", capabilities());
        r.set("serverInfo", serverInfo());
        if (instructions != null) {
            r.put("instructions", instructions);
        }
        return r;
    }

    private static ObjectNode capabilities() {
        ObjectNode c = Json.MAPPER.createObjectNode();
        c.putObject("tools").put("listChanged", false);
        return c;
    }

    private ObjectNode serverInfo() {
        ObjectNode s = Json.MAPPER.createObjectNode();
        s.put("name", serverName);
        s.put("version", serverVersion);
        return s;
    }

    private ObjectNode toolsList() {
        ObjectNode r = Json.MAPPER.createObjectNode();
        ArrayNode list = r.putArray("tools");
        tools.list().forEach(list::add);
        return r;
    }

    private ObjectNode toolsCall(JsonNode params) {
        if (params == null || !params.path("name").isTextual()) {
            throw new InvalidParams("tools/call needs params.name, the tool's name");
        }
        JsonNode args = params.get("arguments");
        if (args != null && !args.isObject() && !args.isNull()) {
            throw new InvalidParams("params.arguments must be an object");
        }
        return tools.call(params.get("name").asText(),
                args == null || args.isNull() ? Json.MAPPER.createObjectNode() : args);
    }

    /** A JSON-RPC error message. */
    static ObjectNode error(JsonNode id, int code, String message, JsonNode data) {
        ObjectNode out = Json.MAPPER.createObjectNode();
        out.put("jsonrpc", "2.0");
        out.set("id", id == null ? Json.MAPPER.nullNode() : id);
        ObjectNode e = out.putObject("error");
        e.put("code", code);
        e.put("message", message);
        if (data != null) {
            e.set("data", data);
        }
        return out;
    }

    private static JsonNode idOf(JsonNode msg) {
        JsonNode id = msg.isObject() ? msg.get("id") : null;
        return id != null && (id.isTextual() || id.isIntegralNumber()) ? id : null;
    }

    private static String clip(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        String first = nl < 0 ? s : s.substring(0, nl);
        return first.length() <= 200 ? first : first.substring(0, 200) + "…";
    }

    /** A tool result of one text block (and the same value as structured content when it is an object). */
    public static ObjectNode result(JsonNode value, boolean isError) {
        ObjectNode r = Json.MAPPER.createObjectNode();
        ArrayNode content = r.putArray("content");
        ObjectNode text = content.addObject();
        text.put("type", "text");
        text.put("text", value.isTextual() ? value.asText() : Json.write(value));
        if (value.isObject()) {
            r.set("structuredContent", value);
        }
        r.put("isError", isError);
        return r;
    }

    /** A tool's input schema: an object with these properties ({@code name → schema}) and required names. */
    public static ObjectNode schema(Map<String, ObjectNode> properties, List<String> required) {
        ObjectNode s = Json.MAPPER.createObjectNode();
        s.put("type", "object");
        ObjectNode props = s.putObject("properties");
        properties.forEach(props::set);
        s.set("required", Json.MAPPER.valueToTree(required));
        s.put("additionalProperties", false);
        return s;
    }
}
