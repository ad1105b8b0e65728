package dev.cohort.core.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import java.net.URI;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A team's {@code mcpServers}, in the shape of Claude Code's {@code .mcp.json}: an object from server name to
 * {@code {command, args?, env?, agents?}} (a local server, {@code type} {@code stdio} or absent) or
 * {@code {type: "http", url, headers?, agents?}} (a remote one). Parsing checks every field and names the first wrong
 * one ({@link InvalidConfig}); pure.
 *
 * <p>Secrets: a value of {@code env} or {@code headers} may be written as {@code ${VAR}} (or {@code ${VAR:-default}},
 * or inside text: {@code Bearer ${GITHUB_TOKEN}}), an environment variable of the tool runner, read only when the
 * server is started or called ({@link #resolve}). A value without such a reference is the secret itself: it is stored,
 * never shown again ({@link #redact} shows it as {@value #STORED}), and a configuration sent back with
 * {@value #STORED} in its place keeps the stored value ({@link #keepStored}).
 */
public final class McpServers {
    /** What people see in place of a stored secret; sent back, it keeps the stored value. */
    public static final String STORED = "<stored>";
    /** A server's name: letters, digits, '-' and single '_' (its tools are {@code mcp__<name>__<tool>}). */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*");
    static final int MAX_NAME = 40;
    static final int MAX_SERVERS = 50;
    static final int MAX_VALUE = 8_192;
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?}");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
    private static final Pattern AGENT = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");
    private static final Set<String> STDIO_FIELDS = Set.of("type", "command", "args", "env", "agents");
    private static final Set<String> HTTP_FIELDS = Set.of("type", "url", "headers", "agents");

    private McpServers() {
    }

    /** A configuration that cannot be used: {@link #field()} names the field, the message says why. */
    public static final class InvalidConfig extends IllegalArgumentException {
        private final String field;

        public InvalidConfig(String field, String reason) {
            super(field + ": " + reason);
            this.field = field;
        }

        /** The wrong field, as a path ({@code mcpServers.github.url}). */
        public String field() {
            return field;
        }
    }

    /**
     * Parses {@code json}, the value of {@code mcpServers}.
     *
     * @param json   an object of servers; {@code null} or JSON null: none
     * @param field  how messages name it ({@code mcpServers})
     * @param source where it comes from ({@code api}, {@code settings})
     * @throws InvalidConfig naming the first wrong field
     */
    public static Map<String, McpServerConfig> parse(JsonNode json, String field, String source) {
        Map<String, McpServerConfig> servers = new LinkedHashMap<>();
        if (json == null || json.isNull() || json.isMissingNode()) {
            return servers;
        }
        if (!json.isObject()) {
            throw new InvalidConfig(field, "must be an object from server name to server, e.g. {\"github\": {\"type\":"
                    + " \"http\", \"url\": \"https://api.githubcopilot.com/mcp/\"}}");
        }
        if (json.size() > MAX_SERVERS) {
            throw new InvalidConfig(field, "at most " + MAX_SERVERS + " servers");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> e = it.next();
            String name = e.getKey();
            String at = field + "." + name;
            if (name.length() > MAX_NAME || !NAME.matcher(name).matches()) {
                throw new InvalidConfig(at, "a server's name is 1 to " + MAX_NAME + " letters, digits, '-' or single"
                        + " '_' (its tools are named mcp__<server>__<tool>)");
            }
            servers.put(name, server(name, e.getValue(), at, source));
        }
        return servers;
    }

    private static McpServerConfig server(String name, JsonNode s, String at, String source) {
        if (!s.isObject()) {
            throw new InvalidConfig(at, "a server is an object: {\"command\": …} or {\"type\": \"http\", \"url\": …}");
        }
        JsonNode typeNode = s.get("type");
        if (typeNode != null && !typeNode.isTextual()) {
            throw new InvalidConfig(at + ".type", "must be \"stdio\" or \"http\"");
        }
        String type = typeNode == null ? (s.has("url") ? McpServerConfig.HTTP : McpServerConfig.STDIO) : typeNode.asText();
        if (type.equals("streamable-http") || type.equals("streamableHttp")) {
            type = McpServerConfig.HTTP;
        }
        if (!type.equals(McpServerConfig.STDIO) && !type.equals(McpServerConfig.HTTP)) {
            throw new InvalidConfig(at + ".type", "must be \"stdio\" or \"http\" (\"" + type + "\" is not supported:"
                    + " the deprecated SSE transport is not spoken)");
        }
        Set<String> allowed = type.equals(McpServerConfig.STDIO) ? STDIO_FIELDS : HTTP_FIELDS;
        for (Iterator<String> f = s.fieldNames(); f.hasNext();) {
            String k = f.next();
            if (!allowed.contains(k)) {
                throw new InvalidConfig(at + "." + k, "unknown field for a" + (type.equals(McpServerConfig.STDIO)
                        ? " stdio server; accepted: " : "n http server; accepted: ") + new java.util.TreeSet<>(allowed));
            }
        }
        List<String> agents = s.has("agents") ? strings(s.get("agents"), at + ".agents", AGENT,
                "an agent's name (lead, or a teammate's name)") : null;
        if (type.equals(McpServerConfig.STDIO)) {
            JsonNode c = s.get("command");
            if (c == null || !c.isTextual() || c.asText().isBlank()) {
                throw new InvalidConfig(at + ".command", "required: the program that starts the server, e.g. \"npx\"");
            }
            String command = value(c.asText(), at + ".command");
            List<String> args = s.has("args") ? strings(s.get("args"), at + ".args", null, null) : null;
            Map<String, String> env = s.has("env") ? map(s.get("env"), at + ".env", ENV_NAME,
                    "an environment variable's name") : null;
            return new McpServerConfig(name, type, command, args, env, null, null, agents, source);
        }
        JsonNode u = s.get("url");
        if (u == null || !u.isTextual() || u.asText().isBlank()) {
            throw new InvalidConfig(at + ".url", "required: the server's streamable HTTP endpoint, e.g."
                    + " \"https://example.com/mcp\"");
        }
        String url = value(u.asText(), at + ".url");
        if (!VARIABLE.matcher(url).find()) {
            try {
                URI uri = URI.create(url);
                if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                    throw new IllegalArgumentException("not http(s)");
                }
            } catch (IllegalArgumentException e) {
                throw new InvalidConfig(at + ".url", "must be an http:// or https:// URL with a host");
            }
        }
        Map<String, String> headers = s.has("headers") ? map(s.get("headers"), at + ".headers", HEADER_NAME,
                "a header's name") : null;
        return new McpServerConfig(name, type, null, null, null, url, headers, agents, source);
    }

    private static String value(String v, String at) {
        if (v.length() > MAX_VALUE) {
            throw new InvalidConfig(at, "longer than " + MAX_VALUE + " characters");
        }
        if (v.indexOf('\0') >= 0) {
            throw new InvalidConfig(at, "contains a NUL character");
        }
        return v;
    }

    private static List<String> strings(JsonNode a, String at, Pattern each, String what) {
        if (!a.isArray()) {
            throw new InvalidConfig(at, "must be an array of strings");
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            JsonNode v = a.get(i);
            if (!v.isTextual()) {
                throw new InvalidConfig(at + "[" + i + "]", "must be a string");
            }
            if (each != null && !each.matcher(v.asText()).matches()) {
                throw new InvalidConfig(at + "[" + i + "]", "'" + v.asText() + "' is not " + what);
            }
            out.add(value(v.asText(), at + "[" + i + "]"));
        }
        return out;
    }

    private static Map<String, String> map(JsonNode o, String at, Pattern key, String what) {
        if (!o.isObject()) {
            throw new InvalidConfig(at, "must be an object of strings");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!key.matcher(e.getKey()).matches()) {
                // the key only: the value may be a secret
                throw new InvalidConfig(at + "." + e.getKey(), "is not " + what);
            }
            if (!e.getValue().isTextual()) {
                throw new InvalidConfig(at + "." + e.getKey(), "must be a string");
            }
            out.put(e.getKey(), value(e.getValue().asText(), at + "." + e.getKey()));
        }
        return out;
    }

    /** {@code servers} as the JSON object {@link #parse} reads (names as keys; {@code source} left out). */
    public static ObjectNode toJson(Map<String, McpServerConfig> servers) {
        ObjectNode out = Json.MAPPER.createObjectNode();
        for (McpServerConfig s : servers.values()) {
            ObjectNode o = Json.MAPPER.valueToTree(s);
            o.remove("name");
            o.remove("source");
            out.set(s.name(), o);
        }
        return out;
    }

    /** {@code true} when {@code value} names an environment variable (so it holds no secret itself). */
    public static boolean namesVariable(String value) {
        return value != null && VARIABLE.matcher(value).find();
    }

    /** {@code values} with every value that holds a secret itself shown as {@value #STORED}. */
    static Map<String, String> redact(Map<String, String> values) {
        if (values == null) {
            return null;
        }
        Map<String, String> out = new LinkedHashMap<>();
        values.forEach((k, v) -> out.put(k, namesVariable(v) ? v : STORED));
        return out;
    }

    /**
     * {@code next} with every {@value #STORED} replaced by the value {@code stored} holds for the same server and key.
     *
     * @throws InvalidConfig when {@code stored} has no such value
     */
    public static Map<String, McpServerConfig> keepStored(Map<String, McpServerConfig> next,
            Map<String, McpServerConfig> stored, String field) {
        Map<String, McpServerConfig> out = new LinkedHashMap<>();
        for (McpServerConfig s : next.values()) {
            McpServerConfig old = stored.get(s.name());
            String at = field + "." + s.name();
            Map<String, String> env = kept(s.env(), old == null ? null : old.env(), at + ".env");
            Map<String, String> headers = kept(s.headers(), old == null ? null : old.headers(), at + ".headers");
            out.put(s.name(), new McpServerConfig(s.name(), s.type(), s.command(), s.args(), env, s.url(), headers,
                    s.agents(), s.source()));
        }
        return out;
    }

    private static Map<String, String> kept(Map<String, String> next, Map<String, String> old, String at) {
        if (next == null) {
            return null;
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : next.entrySet()) {
            if (STORED.equals(e.getValue())) {
                String v = old == null ? null : old.get(e.getKey());
                if (v == null) {
                    throw new InvalidConfig(at + "." + e.getKey(), "'" + STORED + "' keeps a stored value, and none is"
                            + " stored for it; give the value or ${VARIABLE}");
                }
                out.put(e.getKey(), v);
            } else {
                out.put(e.getKey(), e.getValue());
            }
        }
        return out;
    }

    /**
     * The servers an agent gets: those of the settings file, then the team's own (the API's), which replace a file's
     * server of the same name; each only for the agents it names.
     */
    public static List<McpServerConfig> forAgent(Map<String, McpServerConfig> file, Map<String, McpServerConfig> team,
            String agent) {
        Map<String, McpServerConfig> all = new LinkedHashMap<>(file);
        all.putAll(team);
        return all.values().stream().filter(s -> s.servesAgent(agent)).toList();
    }

    /** A variable a value names is not set where the server runs. */
    public static final class UnsetVariable extends IllegalArgumentException {
        public UnsetVariable(String message) {
            super(message);
        }
    }

    /**
     * {@code value} with each {@code ${VAR}} replaced by {@code env}'s value (or the reference's default).
     *
     * @param where how the message names the value ({@code env.GITHUB_TOKEN of server github})
     * @throws UnsetVariable naming the variable (never a value)
     */
    public static String resolve(String value, Function<String, String> env, String where) {
        if (value == null || value.indexOf("${") < 0) {
            return value;
        }
        Matcher m = VARIABLE.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String v = env.apply(m.group(1));
            if (v == null) {
                v = m.group(2);
            }
            if (v == null) {
                throw new UnsetVariable("the environment variable " + m.group(1) + " named by " + where + " is not set"
                        + " where the tool runner runs, or not lent to MCP servers (cohort.mcp.variables)");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(v));
        }
        return m.appendTail(out).toString();
    }

    /** Every value of {@code values} resolved ({@link #resolve}). */
    public static Map<String, String> resolve(Map<String, String> values, Function<String, String> env, String where) {
        if (values == null) {
            return Map.of();
        }
        Map<String, String> out = new LinkedHashMap<>();
        values.forEach((k, v) -> out.put(k, resolve(v, env, where + "." + k)));
        return out;
    }
}
