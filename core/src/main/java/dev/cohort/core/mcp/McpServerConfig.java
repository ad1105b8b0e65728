package dev.cohort.core.mcp;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.Json;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One MCP server of a team, as configured ({@link McpServers#parse}): a local server started as a process of the
 * team's sandbox ({@code stdio}: {@code command}, {@code args}, {@code env}) or a remote one ({@code http}: {@code url},
 * {@code headers}). Values of {@code env} and {@code headers} may name environment variables of the tool runner
 * ({@code ${GITHUB_TOKEN}}, {@code ${VAR:-default}}), resolved only where the server is started or called.
 *
 * @param name    the server's name: its tools are {@code mcp__<name>__<tool>}
 * @param type    {@code stdio} or {@code http}
 * @param command the program ({@code stdio})
 * @param args    its arguments ({@code stdio})
 * @param env     variables set for it on top of the sandbox's environment ({@code stdio})
 * @param url     the streamable HTTP endpoint ({@code http})
 * @param headers headers sent with every request ({@code http})
 * @param agents  the agents that get its tools ({@code lead}, teammate names); {@code null}: every agent of the team
 * @param source  where it was configured ({@code api} or {@code settings}); not part of the server's identity
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record McpServerConfig(String name, String type, String command, List<String> args, Map<String, String> env,
        String url, Map<String, String> headers, List<String> agents, String source) {

    public static final String STDIO = "stdio";
    public static final String HTTP = "http";

    public McpServerConfig {
        args = args == null ? null : List.copyOf(args);
        env = env == null ? null : Map.copyOf(new LinkedHashMap<>(env));
        headers = headers == null ? null : Map.copyOf(new LinkedHashMap<>(headers));
        agents = agents == null ? null : List.copyOf(agents);
    }

    /** {@code true} for a remote (streamable HTTP) server. */
    @JsonIgnore
    public boolean remote() {
        return HTTP.equals(type);
    }

    /** {@code true} when agent {@code agent} (a subagent counts as the agent that started it) gets this server. */
    public boolean servesAgent(String agent) {
        return agents == null || agents.contains(agent);
    }

    /** This server configured at {@code where}. */
    public McpServerConfig from(String where) {
        return new McpServerConfig(name, type, command, args, env, url, headers, agents, where);
    }

    /**
     * A digest of what makes the server what it is (type, command, arguments, environment, URL, headers): a running
     * server is kept only while its configuration's fingerprint stays the same.
     */
    public String fingerprint() {
        Map<String, Object> identity = new LinkedHashMap<>();
        identity.put("name", name);
        identity.put("type", type);
        identity.put("command", command);
        identity.put("args", args);
        identity.put("env", env == null ? null : new java.util.TreeMap<>(env));
        identity.put("url", url);
        identity.put("headers", headers == null ? null : new java.util.TreeMap<>(headers));
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] d = md.digest(Json.write(identity).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * This server as people may see it: a value of {@code env} or {@code headers} that names no environment variable
     * holds the secret itself and is shown as {@value McpServers#STORED}.
     */
    public McpServerConfig redacted() {
        return new McpServerConfig(name, type, command, args, McpServers.redact(env), url, McpServers.redact(headers),
                agents, source);
    }

    @Override
    public String toString() {
        // never the values of env or headers: they may be secrets
        return "McpServerConfig[" + name + ", " + type + ", " + (remote() ? url : command) + "]";
    }
}
