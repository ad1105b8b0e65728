package dev.cohort.toolrunner.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import io.quarkus.logging.Log;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * JSON-RPC over a server process's stdin and stdout, one message per line (MCP's stdio transport). A reader thread
 * answers requests by id, hands notifications to {@code notifications}, and answers the server's own requests
 * ({@code ping}, {@code roots/list}) through {@code serverRequests}; stderr is drained and dropped (it may hold
 * secrets), keeping only its size. When the process exits every waiting request fails with {@link McpException.Closed}.
 */
final class StdioConnection implements McpConnection {
    /** A line longer than this from the server is a protocol failure (no real message is that large). */
    static final int MAX_LINE = 16 * 1024 * 1024;

    private final String server;
    private final Process process;
    private final OutputStream stdin;
    private final Map<Long, CompletableFuture<JsonNode>> waiting = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final Consumer<String> notifications;
    private final Function<JsonNode, JsonNode> serverRequests;
    private final AtomicLong stderrBytes = new AtomicLong();
    private volatile String closedWhy;

    StdioConnection(String server, Process process, Consumer<String> notifications,
            Function<JsonNode, JsonNode> serverRequests) {
        this.server = server;
        this.process = process;
        this.stdin = process.getOutputStream();
        this.notifications = notifications;
        this.serverRequests = serverRequests;
        Thread.ofVirtual().name("mcp-" + server + "-out").start(this::readStdout);
        Thread.ofVirtual().name("mcp-" + server + "-err").start(() -> drain(process.getErrorStream()));
        process.onExit().thenRun(() -> closed("MCP server '" + server + "' exited (exit code "
                + process.exitValue() + ")"));
    }

    private void readStdout() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8), 64 * 1024)) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                if (line.length() > MAX_LINE) {
                    closed("MCP server '" + server + "' sent a message larger than " + MAX_LINE + " bytes");
                    process.destroyForcibly();
                    return;
                }
                handle(line);
            }
        } catch (IOException e) {
            // the stream closed: the process is ending
        }
        try {
            if (process.waitFor(2, TimeUnit.SECONDS)) {
                closed("MCP server '" + server + "' exited (exit code " + process.exitValue() + ")");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closed("MCP server '" + server + "' closed its output");
    }

    private void handle(String line) {
        JsonNode m;
        try {
            m = Json.MAPPER.readTree(line);
        } catch (IOException e) {
            // a server that logs to stdout breaks the transport for that line only; the line is not kept (secrets)
            Log.debugf("MCP server '%s' wrote a line that is not JSON-RPC (%d characters)", server, line.length());
            return;
        }
        if (m == null || !m.isObject()) {
            return;
        }
        JsonNode id = m.get("id");
        String method = m.path("method").asText(null);
        if (method != null) {
            if (id == null || id.isNull()) {
                notifications.accept(method);
                return;
            }
            JsonNode result = serverRequests.apply(m);
            ObjectNode reply = Json.MAPPER.createObjectNode().put("jsonrpc", "2.0");
            reply.set("id", id);
            if (result != null) {
                reply.set("result", result);
            } else {
                reply.putObject("error").put("code", -32601).put("message", "method \"" + method + "\" is not"
                        + " offered by this client");
            }
            write(reply);
            return;
        }
        if (id == null || !id.canConvertToLong()) {
            return;
        }
        CompletableFuture<JsonNode> f = waiting.remove(id.asLong());
        if (f != null) {
            f.complete(m);
        }
    }

    private void drain(InputStream err) {
        byte[] buf = new byte[8192];
        try (err) {
            int n;
            while ((n = err.read(buf)) >= 0) {
                stderrBytes.addAndGet(n);
            }
        } catch (IOException e) {
            // gone with the process
        }
    }

    private void closed(String why) {
        if (closedWhy == null) {
            closedWhy = why;
        }
        for (Long k : waiting.keySet()) {
            CompletableFuture<JsonNode> f = waiting.remove(k);
            if (f != null) {
                f.completeExceptionally(new McpException.Closed(closedWhy));
            }
        }
    }

    private synchronized boolean write(ObjectNode message) {
        try {
            stdin.write(Json.write(message).getBytes(StandardCharsets.UTF_8));
            stdin.write('\n');
            stdin.flush();
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public JsonNode request(String method, ObjectNode params, Duration timeout)
            throws McpException, InterruptedException {
        long id = ids.incrementAndGet();
        ObjectNode m = Json.MAPPER.createObjectNode().put("jsonrpc", "2.0").put("id", id).put("method", method);
        if (params != null) {
            m.set("params", params);
        }
        CompletableFuture<JsonNode> f = new CompletableFuture<>();
        waiting.put(id, f);
        if (closedWhy != null || !write(m)) {
            waiting.remove(id);
            throw new McpException.Closed(closedWhy != null ? closedWhy : "MCP server '" + server + "' does not read"
                    + " its input any more");
        }
        JsonNode answer;
        try {
            answer = f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            waiting.remove(id);
            ObjectNode cancel = Json.MAPPER.createObjectNode().put("requestId", id).put("reason", "timed out");
            notify("notifications/cancelled", cancel);
            throw new McpException.Timeout("MCP server '" + server + "' did not answer " + method + " within "
                    + timeout.toMillis() + " ms");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof McpException me) {
                throw me;
            }
            throw new McpException("MCP server '" + server + "': " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            waiting.remove(id);
            throw e;
        }
        return McpClientSession.resultOf(server, method, answer);
    }

    @Override
    public void notify(String method, ObjectNode params) {
        ObjectNode m = Json.MAPPER.createObjectNode().put("jsonrpc", "2.0").put("method", method);
        if (params != null) {
            m.set("params", params);
        }
        write(m);
    }

    @Override
    public boolean alive() {
        return closedWhy == null && process.isAlive();
    }

    @Override
    public String state() {
        return closedWhy != null ? closedWhy : "running (pid " + process.pid() + ")";
    }

    /** The process. */
    Process process() {
        return process;
    }

    @Override
    public void close() {
        try {
            stdin.close();
        } catch (IOException e) {
            // already closed
        }
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(2, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        closed("MCP server '" + server + "' was stopped");
    }
}
