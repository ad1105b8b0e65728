package dev.cohort.toolrunner.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * MCP's streamable HTTP transport, as a client: every message is a POST; an answer is JSON or an event stream whose
 * events carry the answer (and notifications before it). The server's session id ({@code Mcp-Session-Id}) is sent
 * back on every later request; a session the server no longer knows (404) closes this connection, and the next use
 * opens a new one. The deprecated HTTP+SSE transport is not spoken.
 */
final class HttpConnection implements McpConnection {
    /** An answer larger than this is refused. */
    static final int MAX_BODY = 16 * 1024 * 1024;

    private final String server;
    private final URI url;
    private final Map<String, String> headers;
    private final HttpClient http;
    private final Consumer<String> notifications;
    private final AtomicLong ids = new AtomicLong();
    private volatile String session;
    private volatile String protocolVersion;
    private volatile String closedWhy;

    HttpConnection(String server, URI url, Map<String, String> headers, HttpClient http,
            Consumer<String> notifications) {
        this.server = server;
        this.url = url;
        this.headers = headers;
        this.http = http;
        this.notifications = notifications;
    }

    /** The protocol version agreed, sent as {@code MCP-Protocol-Version} on every later request. */
    void protocolVersion(String v) {
        this.protocolVersion = v;
    }

    private HttpRequest.Builder post(ObjectNode message, Duration timeout) {
        HttpRequest.Builder b = HttpRequest.newBuilder(url).timeout(timeout)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(message)));
        headers.forEach(b::header);
        if (session != null) {
            b.header("Mcp-Session-Id", session);
        }
        if (protocolVersion != null) {
            b.header("MCP-Protocol-Version", protocolVersion);
        }
        String method = message.path("method").asText(null);
        if (method != null && McpClientSession.MODERN.equals(protocolVersion)) {
            b.header("Mcp-Method", method);
        }
        return b;
    }

    @Override
    public JsonNode request(String method, ObjectNode params, Duration timeout)
            throws McpException, InterruptedException {
        if (closedWhy != null) {
            throw new McpException.Closed(closedWhy);
        }
        long id = ids.incrementAndGet();
        ObjectNode m = Json.MAPPER.createObjectNode().put("jsonrpc", "2.0").put("id", id).put("method", method);
        if (params != null) {
            m.set("params", params);
        }
        HttpResponse<InputStream> r;
        try {
            r = http.send(post(m, timeout).build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (HttpTimeoutException e) {
            throw new McpException.Timeout("MCP server '" + server + "' did not answer " + method + " within "
                    + timeout.toMillis() + " ms");
        } catch (IOException e) {
            throw new McpException("MCP server '" + server + "' cannot be reached at " + hostOf() + ": " + e, e);
        }
        try (InputStream body = r.body()) {
            r.headers().firstValue("mcp-session-id").ifPresent(s -> session = s);
            if (r.statusCode() == 404 && session != null) {
                closedWhy = "MCP server '" + server + "' no longer knows its session";
                throw new McpException.Closed(closedWhy);
            }
            if (r.statusCode() / 100 != 2) {
                throw new McpException(-r.statusCode(), "MCP server '" + server + "' answered " + method + " with HTTP "
                        + r.statusCode());
            }
            String type = r.headers().firstValue("content-type").orElse("");
            if (type.startsWith("text/event-stream")) {
                return McpClientSession.resultOf(server, method, fromEvents(body, id, method));
            }
            byte[] bytes = body.readNBytes(MAX_BODY + 1);
            if (bytes.length > MAX_BODY) {
                throw new McpException(-32700, "MCP server '" + server + "' answered " + method + " with more than "
                        + MAX_BODY + " bytes");
            }
            JsonNode answer;
            try {
                answer = Json.MAPPER.readTree(bytes);
            } catch (IOException e) {
                throw new McpException(-32700, "MCP server '" + server + "' answered " + method + " with something"
                        + " that is not JSON");
            }
            return McpClientSession.resultOf(server, method, answer);
        } catch (IOException e) {
            throw new McpException("MCP server '" + server + "' broke off its answer to " + method + ": " + e, e);
        }
    }

    /** Reads events until the one answering {@code id}; notifications before it are handed on. */
    private JsonNode fromEvents(InputStream body, long id, String method) throws IOException, McpException {
        BufferedReader r = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
        StringBuilder data = new StringBuilder();
        String line;
        long read = 0;
        while ((line = r.readLine()) != null) {
            read += line.length();
            if (read > MAX_BODY) {
                break;
            }
            if (line.startsWith("data:")) {
                data.append(line.substring(line.startsWith("data: ") ? 6 : 5)).append('\n');
                continue;
            }
            if (!line.isEmpty() || data.isEmpty()) {
                continue;
            }
            JsonNode m;
            try {
                m = Json.MAPPER.readTree(data.toString());
            } catch (IOException e) {
                m = null;
            }
            data.setLength(0);
            if (m == null || !m.isObject()) {
                continue;
            }
            if (m.has("method") && !m.has("id")) {
                notifications.accept(m.path("method").asText());
            } else if (m.path("id").asLong(-1) == id && !m.has("method")) {
                return m;
            }
        }
        throw new McpException.Closed("MCP server '" + server + "' ended its event stream without answering " + method);
    }

    @Override
    public void notify(String method, ObjectNode params) {
        ObjectNode m = Json.MAPPER.createObjectNode().put("jsonrpc", "2.0").put("method", method);
        if (params != null) {
            m.set("params", params);
        }
        try {
            http.send(post(m, Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding());
        } catch (IOException e) {
            // a notification that does not arrive changes nothing the client waits for
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private String hostOf() {
        return url.getScheme() + "://" + url.getHost() + (url.getPort() < 0 ? "" : ":" + url.getPort());
    }

    @Override
    public boolean alive() {
        return closedWhy == null;
    }

    @Override
    public String state() {
        return closedWhy != null ? closedWhy : "reachable at " + hostOf();
    }

    @Override
    public void close() {
        if (session != null && closedWhy == null) {
            try {
                HttpRequest.Builder b = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(5)).DELETE()
                        .header("Mcp-Session-Id", session);
                headers.forEach(b::header);
                http.send(b.build(), HttpResponse.BodyHandlers.discarding());
            } catch (IOException e) {
                // the server is gone: nothing to end
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        closedWhy = "closed";
    }
}
