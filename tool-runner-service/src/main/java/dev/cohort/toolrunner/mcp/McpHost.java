package dev.cohort.toolrunner.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.mcp.McpListRequest;
import dev.cohort.core.mcp.McpServerConfig;
import dev.cohort.core.mcp.McpServerTools;
import dev.cohort.core.mcp.McpServers;
import dev.cohort.core.mcp.McpToolInfo;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.process.EnvironmentPolicy;
import dev.cohort.toolrunner.sandbox.CommandLimits;
import dev.cohort.toolrunner.sandbox.CommandSandbox;
import dev.cohort.toolrunner.workspace.ToolContext;
import dev.cohort.toolrunner.workspace.Workspaces;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.logging.Log;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The teams' MCP servers, as this runner hosts them. A local ({@code stdio}) server is a process of its team's sandbox:
 * the sandbox of a command of that team (its workspace writable, or read-only for an agent in plan mode; other teams'
 * workspaces, the runner's state and the user's home hidden; network only under the team's policy; the commands'
 * rlimits), in a PID namespace of its own, so the team's commands cannot read its environment. It is started when its
 * tools are first listed or called, kept while its configuration stays the same, and started again at the next use
 * after it died. A remote ({@code http}) server is reached only by a team whose sandbox has the network.
 *
 * <p>In a team's sandbox pod (role {@code sandbox}) a server is a process of the pod, whose egress is the team's
 * NetworkPolicy; since the pod's commands run unconfined beside it, a server given {@code env} values is not started
 * there.
 *
 * <p>Secrets: {@code ${VAR}} in a server's {@code env} and {@code headers} is read from this runner's environment here
 * (in the control half, for a pod) and nowhere else; the values (read or stored) go to the server only, and are masked ({@code ***}) in everything a
 * model sees. Nothing of a server's stderr is kept.
 */
@ApplicationScoped
public class McpHost {
    /** What a model sees in place of a secret a server echoed. */
    static final String MASK = "***";
    /** Secrets shorter than this are not masked (they would mask ordinary words). */
    static final int MIN_MASKED = 4;
    /** A tool result's text kept at most. */
    static final int MAX_OUTPUT = 100_000;

    @Inject
    ToolRunnerConfig config;
    @Inject
    Workspaces workspaces;
    @Inject
    CommandSandbox sandbox;
    @Inject
    CommandLimits limits;
    @Inject
    MeterRegistry meters;

    @ConfigProperty(name = "cohort.mcp.call-timeout", defaultValue = "60s")
    Duration callTimeout;
    @ConfigProperty(name = "cohort.mcp.start-timeout", defaultValue = "30s")
    Duration startTimeout;
    @ConfigProperty(name = "cohort.mcp.idle-timeout", defaultValue = "15m")
    Duration idleTimeout;
    /**
     * The environment variables of this runner a server's {@code ${VAR}} may name: names, or prefixes ending in
     * {@code *}. None by default: the runner's environment holds its own credentials, and a settings file may come
     * with a repository nobody here wrote.
     */
    @ConfigProperty(name = "cohort.mcp.variables")
    java.util.Optional<List<String>> variables;

    private java.util.concurrent.ScheduledExecutorService idleCheck;

    private final Map<String, Server> servers = new ConcurrentHashMap<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
            .followRedirects(HttpClient.Redirect.NEVER).build();

    /** One configured server of one team, and its running session when there is one. */
    private final class Server {
        final String team;
        final McpServerConfig config;
        final boolean readOnly;
        final AtomicLong version = new AtomicLong();
        final AtomicBoolean listChanged = new AtomicBoolean();
        final AtomicLong starts = new AtomicLong();
        final java.util.concurrent.atomic.AtomicInteger calling = new java.util.concurrent.atomic.AtomicInteger();
        volatile List<McpToolInfo> tools;
        volatile McpClientSession session;
        volatile List<String> secrets = List.of();
        volatile long usedAt = System.nanoTime();

        Server(String team, McpServerConfig config, boolean readOnly) {
            this.team = team;
            this.config = config;
            this.readOnly = readOnly;
        }
    }

    static String key(String team, McpServerConfig c, boolean readOnly) {
        return team + "/" + c.name() + "/" + c.fingerprint() + (readOnly ? "/ro" : "");
    }

    void onStart(@Observes io.quarkus.runtime.StartupEvent ev) {
        long every = Math.max(1_000, Math.min(60_000, idleTimeout.toMillis() / 2));
        idleCheck = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform()
                .daemon().name("mcp-idle").unstarted(r));
        idleCheck.scheduleWithFixedDelay(() -> {
            try {
                stopIdle(idleTimeout);
            } catch (RuntimeException e) {
                Log.warnf("idle MCP servers not stopped: %s", e.toString());
            }
        }, every, every, TimeUnit.MILLISECONDS);
    }

    void onStop(@Observes ShutdownEvent ev) {
        if (idleCheck != null) {
            idleCheck.shutdownNow();
        }
        servers.values().forEach(this::stop);
        servers.clear();
    }

    /**
     * Stops the servers not used for {@code idle} (their tools stay known, so listing them does not start them; the
     * next call does); returns how many were stopped.
     */
    public int stopIdle(Duration idle) {
        long now = System.nanoTime();
        int stopped = 0;
        for (Server s : servers.values()) {
            if (s.session != null && now - s.usedAt >= idle.toNanos() && s.calling.get() == 0) {
                synchronized (s) {
                    if (s.session != null && s.calling.get() == 0) {
                        Log.infof("team=%s MCP server '%s' unused for %s: stopped", s.team, s.config.name(), idle);
                        stop(s);
                        stopped++;
                    }
                }
            }
        }
        return stopped;
    }

    /** The server of {@code team} configured as {@code c}; another configuration of the same name is stopped. */
    private Server server(String team, McpServerConfig c, boolean readOnly) {
        String key = key(team, c, readOnly);
        Server s = servers.computeIfAbsent(key, k -> new Server(team, c, readOnly));
        String prefix = team + "/" + c.name() + "/";
        for (Map.Entry<String, Server> e : servers.entrySet()) {
            if (e.getKey().startsWith(prefix) && !e.getKey().startsWith(prefix + c.fingerprint())) {
                Server old = servers.remove(e.getKey());
                if (old != null) {
                    Log.infof("team=%s MCP server '%s': configuration changed, the old one stopped", team, c.name());
                    stop(old);
                }
            }
        }
        return s;
    }

    private void stop(Server s) {
        McpClientSession session = s.session;
        s.session = null;
        if (session != null) {
            session.connection().close();
        }
    }

    /** The running servers of {@code team} (tests, metrics). */
    public int running(String team) {
        return (int) servers.values().stream().filter(s -> s.team.equals(team) && s.session != null
                && s.session.connection().alive()).count();
    }

    /** The process of {@code team}'s local server {@code name}, when one runs (tests kill it). */
    public Optional<ProcessHandle> process(String team, String name) {
        return servers.values().stream().filter(s -> s.team.equals(team) && s.config.name().equals(name))
                .map(s -> s.session).filter(x -> x != null && x.connection() instanceof StdioConnection)
                .map(x -> ((StdioConnection) x.connection()).process().toHandle()).filter(ProcessHandle::isAlive)
                .findFirst();
    }

    /** Calls of {@code team}'s server {@code name} sent and not answered yet (tests). */
    public int calling(String team, String name) {
        return servers.values().stream().filter(s -> s.team.equals(team) && s.config.name().equals(name))
                .mapToInt(s -> s.calling.get()).sum();
    }

    /** The tools of the request's servers, each listed when it is running or was never listed. */
    public List<McpServerTools> tools(McpListRequest req) {
        List<McpServerTools> out = new ArrayList<>();
        for (McpServerConfig c : req.servers() == null ? List.<McpServerConfig>of() : req.servers()) {
            Server s = server(req.team(), c, req.readOnly());
            s.usedAt = System.nanoTime();
            synchronized (s) {
                try {
                    McpClientSession session = s.session;
                    boolean running = session != null && session.connection().alive();
                    if (s.tools == null || running && s.listChanged.getAndSet(false)) {
                        session = session(s);
                        s.tools = List.copyOf(session.listTools(callTimeout));
                        s.version.incrementAndGet();
                    }
                    out.add(new McpServerTools(c.name(), s.tools, s.version.get(), null));
                } catch (McpException | RuntimeException e) {
                    out.add(new McpServerTools(c.name(), null, s.version.get(), mask(s, problem(c, e))));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    out.add(new McpServerTools(c.name(), null, s.version.get(), "listing the tools of MCP server '"
                            + c.name() + "' was interrupted"));
                }
            }
        }
        return out;
    }

    private static String problem(McpServerConfig c, Exception e) {
        String m = e.getMessage() == null ? e.toString() : e.getMessage();
        return m.contains("'" + c.name() + "'") ? m : "MCP server '" + c.name() + "': " + m;
    }

    /**
     * Calls tool {@code tool} of {@code c} for {@code ctx}'s team; every failure is a result whose error names the
     * server (the turn goes on).
     */
    public ToolCallResult call(ToolContext ctx, McpServerConfig c, String tool, Map<String, Object> args) {
        long t0 = System.nanoTime();
        Server s = server(ctx.team(), c, ctx.readOnly());
        s.usedAt = System.nanoTime();
        String outcome = "ok";
        try {
            McpClientSession session;
            synchronized (s) {
                session = session(s);
            }
            JsonNode r;
            s.calling.incrementAndGet();
            try {
                r = session.callTool(tool, Json.MAPPER.valueToTree(args), callTimeout);
            } finally {
                s.calling.decrementAndGet();
                s.usedAt = System.nanoTime();
            }
            String text = mask(s, text(r));
            if (r.path("isError").asBoolean(false)) {
                outcome = "error";
                return ToolCallResult.failure("MCP server '" + c.name() + "', tool '" + tool + "' answered an error: "
                        + text, ms(t0));
            }
            boolean cut = text.length() > MAX_OUTPUT;
            return new ToolCallResult(cut ? text.substring(0, MAX_OUTPUT) + "\n[… output capped at " + MAX_OUTPUT
                    + " characters]" : text, null, null, cut ? Boolean.TRUE : null, null, ms(t0), null);
        } catch (McpException.Timeout e) {
            outcome = "timeout";
            return ToolCallResult.failure(mask(s, e.getMessage()) + " (cohort.mcp.call-timeout); the call may still"
                    + " finish there, so check before calling it again", ms(t0));
        } catch (McpException.Closed e) {
            outcome = "exited";
            return ToolCallResult.failure(mask(s, e.getMessage()) + " during the call to '" + tool + "'; its outcome"
                    + " is unknown. The server is started again at its next use", ms(t0));
        } catch (McpException e) {
            outcome = "error";
            return ToolCallResult.failure(mask(s, problem(c, e)), ms(t0));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            outcome = "interrupted";
            return ToolCallResult.failure("the call to MCP server '" + c.name() + "' was interrupted", ms(t0));
        } catch (RuntimeException e) {
            outcome = "error";
            return ToolCallResult.failure(mask(s, problem(c, e)), ms(t0));
        } finally {
            Timer.builder("cohort.toolrunner.mcp.calls").tag("outcome", outcome).register(meters)
                    .record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
        }
    }

    private static long ms(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    /** The running session of {@code s}, started (again) when there is none or it died. Hold {@code s}'s lock. */
    private McpClientSession session(Server s) throws McpException, InterruptedException {
        McpClientSession session = s.session;
        if (session != null && session.connection().alive()) {
            return session;
        }
        if (session != null) {
            Log.warnf("team=%s MCP server '%s' is not running (%s); starting it again", s.team, s.config.name(),
                    session.connection().state());
            session.connection().close();
        }
        long t0 = System.nanoTime();
        McpConnection connection = connect(s);
        try {
            session = McpClientSession.open(s.config.name(), connection, startTimeout);
        } catch (McpException | InterruptedException | RuntimeException e) {
            connection.close();
            throw e;
        }
        s.session = session;
        long n = s.starts.incrementAndGet();
        if (n > 1) {
            s.listChanged.set(true); // a new process may list other tools
        }
        Timer.builder("cohort.toolrunner.mcp.starts").tag("type", s.config.type()).register(meters)
                .record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
        Log.infof("team=%s MCP server '%s' (%s) started in %d ms, protocol %s", s.team, s.config.name(),
                s.config.type(), (System.nanoTime() - t0) / 1_000_000, session.version());
        return session;
    }

    /**
     * The value of this runner's variable {@code name} when {@code cohort.mcp.variables} lends it to MCP servers; else
     * {@code null}, as for a variable that is not set (a reference's default then applies).
     */
    String lent(String name) {
        for (String v : variables.orElse(List.of())) {
            String p = v.strip();
            if (p.equals(name) || p.endsWith("*") && name.startsWith(p.substring(0, p.length() - 1))) {
                return System.getenv(name);
            }
        }
        return null;
    }

    /**
     * {@code c} with every {@code ${VAR}} of its {@code env}, {@code headers} and {@code url} read from this runner's
     * environment: what the control half sends to a team's sandbox pod, which holds none of its variables.
     *
     * @throws McpException naming the variable that is not set
     */
    public McpServerConfig resolved(McpServerConfig c) throws McpException {
        Function<String, String> env = this::lent;
        String where = "MCP server '" + c.name() + "'";
        try {
            return new McpServerConfig(c.name(), c.type(), c.command(), c.args(),
                    c.env() == null ? null : McpServers.resolve(c.env(), env, "env of " + where),
                    McpServers.resolve(c.url(), env, "the url of " + where),
                    c.headers() == null ? null : McpServers.resolve(c.headers(), env, "headers of " + where),
                    c.agents(), c.source());
        } catch (McpServers.UnsetVariable e) {
            throw new McpException(McpException.NO_ANSWER, e.getMessage());
        }
    }

    private McpConnection connect(Server s) throws McpException {
        McpServerConfig c = s.config;
        boolean pod = config.role() == ToolRunnerConfig.Role.SANDBOX;
        // in a team's sandbox pod the control half resolved the variables already: values are used as they came
        Function<String, String> env = pod ? name -> null : this::lent;
        List<String> secrets = new ArrayList<>();
        if (c.remote()) {
            // a pod's egress is its NetworkPolicy's (the team's); here, the team's sandbox policy
            if (!pod && !sandbox.networkAllowed(s.team)) {
                throw new McpException(McpException.NO_ANSWER, "MCP server '" + c.name() + "' is remote, and team "
                        + s.team + "'s sandbox has no network (cohort.tool-runner.sandbox-network-teams)");
            }
            Map<String, String> headers = pod ? (c.headers() == null ? Map.of() : c.headers())
                    : resolve(c.headers(), env, "headers of MCP server '" + c.name() + "'");
            secrets.addAll(headers.values());
            String url = pod ? c.url() : McpServers.resolve(c.url(), env, "the url of MCP server '" + c.name() + "'");
            s.secrets = secretsOf(secrets);
            return new HttpConnection(c.name(), URI.create(url), headers, http, m -> notified(s, m));
        }
        if (pod && sandbox.level() == CommandSandbox.Level.NONE && c.env() != null && !c.env().isEmpty()) {
            throw new McpException(McpException.NO_ANSWER, "MCP server '" + c.name() + "' is given env values, and in"
                    + " a team's sandbox pod the team's commands can read a server's environment; such a server is not"
                    + " started there (give it no env, or run the tool runner with role runner)");
        }
        Map<String, String> own = pod ? (c.env() == null ? Map.of() : c.env())
                : resolve(c.env(), env, "env of MCP server '" + c.name() + "'");
        secrets.addAll(own.values());
        s.secrets = secretsOf(secrets);
        Workspaces.Location loc = workspaces.locate(s.team, null);
        ToolContext ctx = new ToolContext(s.team, "mcp-" + c.name(), "mcp", loc.workspace(), loc.root(), loc.root(),
                null, s.readOnly, loc.others());
        Path home = workspaces.home(s.team);
        List<String> command = new ArrayList<>(sandbox.prefix(ctx, home));
        command.addAll(limits.prefix());
        command.add(c.command());
        if (c.args() != null) {
            command.addAll(c.args());
        }
        Map<String, String> childEnv = new HashMap<>(EnvironmentPolicy.childEnvironment(System.getenv(),
                config.env().allowlist(), Pattern.compile(config.env().denyNamePattern()), home, s.team,
                "mcp-" + c.name()));
        childEnv.putAll(own);
        ProcessBuilder pb = new ProcessBuilder(command).directory(loc.root().toFile());
        pb.environment().clear();
        pb.environment().putAll(childEnv);
        try {
            Process p = pb.start();
            return new StdioConnection(c.name(), p, m -> notified(s, m), req -> answer(req, loc.root()));
        } catch (IOException e) {
            throw new McpException("MCP server '" + c.name() + "' cannot be started: " + e.getMessage(), e);
        }
    }

    private static Map<String, String> resolve(Map<String, String> values, Function<String, String> env, String where)
            throws McpException {
        try {
            return McpServers.resolve(values, env, where);
        } catch (McpServers.UnsetVariable e) {
            throw new McpException(McpException.NO_ANSWER, e.getMessage());
        }
    }

    private static List<String> secretsOf(List<String> values) {
        return values.stream().filter(v -> v != null && v.length() >= MIN_MASKED).distinct()
                .sorted(Comparator.comparingInt(String::length).reversed()).toList();
    }

    private void notified(Server s, String method) {
        if ("notifications/tools/list_changed".equals(method)) {
            s.listChanged.set(true);
        }
    }

    /** The client's answers to a server's requests: {@code ping}, and {@code roots/list} (the workspace). */
    private static JsonNode answer(JsonNode request, Path root) {
        return switch (request.path("method").asText()) {
            case "ping" -> Json.MAPPER.createObjectNode();
            case "roots/list" -> {
                ObjectNode r = Json.MAPPER.createObjectNode();
                r.putArray("roots").addObject().put("uri", root.toUri().toString()).put("name", "workspace");
                yield r;
            }
            default -> null;
        };
    }

    private static String mask(Server s, String text) {
        if (text == null) {
            return null;
        }
        String out = text;
        for (String secret : s.secrets) {
            out = out.replace(secret, MASK);
        }
        return out;
    }

    /**
     * A tool result as text: its text content, its structured content as JSON, and each other content item named
     * with its type and size.
     */
    static String text(JsonNode result) {
        List<String> parts = new ArrayList<>();
        for (JsonNode c : result.path("content")) {
            String type = c.path("type").asText("");
            switch (type) {
                case "text" -> parts.add(c.path("text").asText(""));
                case "image", "audio" -> parts.add("[" + type + " content, " + c.path("mimeType").asText("unknown type")
                        + ", " + base64Size(c.path("data").asText("")) + " bytes]");
                case "resource_link" -> parts.add("[resource link: " + c.path("uri").asText("")
                        + (c.hasNonNull("name") ? " (" + c.path("name").asText() + ")" : "") + "]");
                case "resource" -> {
                    JsonNode r = c.path("resource");
                    if (r.hasNonNull("text")) {
                        parts.add("[resource " + r.path("uri").asText("") + "]\n" + r.path("text").asText());
                    } else {
                        parts.add("[resource " + r.path("uri").asText("") + ", " + r.path("mimeType").asText("binary")
                                + ", " + base64Size(r.path("blob").asText("")) + " bytes]");
                    }
                }
                default -> parts.add("[" + (type.isEmpty() ? "unknown" : type) + " content, "
                        + c.toString().length() + " characters]");
            }
        }
        JsonNode structured = result.get("structuredContent");
        if (structured != null && !structured.isNull()) {
            parts.add("structuredContent: " + Json.write(structured));
        }
        return String.join("\n", parts);
    }

    private static long base64Size(String b64) {
        int pad = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
        return Math.max(0, b64.length() * 3L / 4 - pad);
    }

    /** Names of the tools last listed of each server of {@code team} (tests). */
    public Map<String, List<String>> listed(String team) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        servers.values().stream().filter(s -> s.team.equals(team) && s.tools != null)
                .forEach(s -> out.put(s.config.name(), s.tools.stream().map(McpToolInfo::name).toList()));
        return out;
    }
}
