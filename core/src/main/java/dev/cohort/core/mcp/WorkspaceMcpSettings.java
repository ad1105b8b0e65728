package dev.cohort.core.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code mcpServers} of a workspace settings file ({@code .cohort/settings.json}), from its text as the engine
 * reads it at a turn's start. Thread-safe and shared by every agent of an engine: it keeps each team's last good
 * servers, so a file broken later keeps them (and the caller reports the problem). A missing file means no servers.
 */
public final class WorkspaceMcpSettings {
    /** The source named in a server read from the file. */
    public static final String SOURCE = "settings";

    private record Good(String text, Map<String, McpServerConfig> servers) {
    }

    private final ConcurrentHashMap<String, Good> good = new ConcurrentHashMap<>();

    /**
     * @param servers the servers in force from the file: its own, or the last good ones when it is broken now
     * @param problem why the file's current {@code mcpServers} are not used ({@code null}: they are)
     */
    public record Result(Map<String, McpServerConfig> servers, String problem) {
    }

    /** The team's last good servers (the file cannot be read now). */
    public Map<String, McpServerConfig> kept(String team) {
        Good last = good.get(team);
        return last == null ? Map.of() : last.servers();
    }

    /**
     * The servers of team {@code team}'s file, whose text is {@code text} ({@code null}: no file). A file that is not
     * a JSON object is the hooks' problem (same file) and keeps the last good servers without a problem of its own.
     */
    public Result read(String team, String path, String text) {
        if (text == null) {
            good.remove(team);
            return new Result(Map.of(), null);
        }
        Good last = good.get(team);
        if (last != null && last.text().equals(text)) {
            return new Result(last.servers(), null);
        }
        JsonNode root;
        try {
            root = text.isBlank() ? null : Json.MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            return new Result(last == null ? Map.of() : last.servers(), null); // the hooks' reader reports it
        }
        if (root == null || !root.isObject()) {
            return new Result(last == null ? Map.of() : last.servers(), null);
        }
        Map<String, McpServerConfig> servers;
        try {
            servers = java.util.Collections.unmodifiableMap(McpServers.parse(root.get("mcpServers"), "mcpServers", SOURCE));
        } catch (McpServers.InvalidConfig e) {
            return new Result(last == null ? Map.of() : last.servers(), "invalid " + path + ": " + e.getMessage()
                    + (last == null ? "; no valid MCP servers of it were read before, so none of them are offered"
                            : "; the last valid MCP servers of it stay in force (" + last.servers().size() + ")"));
        }
        good.put(team, new Good(text, servers));
        return new Result(servers, null);
    }
}
