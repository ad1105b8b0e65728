package dev.cohort.core.tools.mcp;

import dev.cohort.core.mcp.McpServerConfig;
import dev.cohort.core.mcp.McpToolInfo;
import dev.cohort.core.mcp.McpServerTools;
import dev.cohort.core.tools.Tool;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tools of a team's MCP servers, for one engine: listed through the {@link McpGateway} and built into
 * {@link McpTool}s once per server configuration and list version, so a step whose lists did not change offers the
 * very same specs. Thread-safe; one per engine.
 */
public final class McpToolbox {
    /** Built tool lists kept at most (per server configuration and version). */
    private static final int MAX_KEPT = 512;

    private final McpGateway gateway;
    private final Map<String, Built> built = new ConcurrentHashMap<>();

    private record Built(List<McpTool> tools, List<String> skipped) {
    }

    public McpToolbox(McpGateway gateway) {
        this.gateway = gateway;
    }

    /**
     * What an agent is offered now.
     *
     * @param tools    the tools by name, servers in order
     * @param specs    their specs, in the same order
     * @param problems one line per server whose tools are not offered, or some of them (naming the server)
     */
    public record Offer(Map<String, McpTool> tools, List<ToolSpecification> specs, List<String> problems) {
        public static final Offer NONE = new Offer(Map.of(), List.of(), List.of());

        public Optional<McpTool> find(String name) {
            return Optional.ofNullable(tools.get(name));
        }

        /** The tool named {@code name}, as the engine calls any tool. */
        public Optional<Tool> tool(String name) {
            return Optional.ofNullable(tools.get(name));
        }

        /** The server of the tool named {@code name}. */
        public Optional<String> server(String name) {
            McpTool t = tools.get(name);
            return t == null ? Optional.empty() : Optional.of(t.server().name());
        }
    }

    /**
     * The tools of {@code servers} for {@code agent} of {@code team}; a server the runner cannot reach is a problem,
     * and the others' tools are still offered.
     *
     * @throws dev.cohort.core.tools.ToolInfrastructureException when the tool runner is unreachable after retries
     */
    public Offer offer(String team, String agent, boolean readOnly, List<McpServerConfig> servers) {
        if (servers.isEmpty()) {
            return Offer.NONE;
        }
        List<McpServerTools> listed = gateway.tools(team, agent, readOnly, servers);
        Map<String, McpServerTools> byServer = new LinkedHashMap<>();
        for (McpServerTools t : listed) {
            byServer.put(t.server(), t);
        }
        Map<String, McpTool> tools = new LinkedHashMap<>();
        List<ToolSpecification> specs = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (McpServerConfig s : servers) {
            McpServerTools t = byServer.get(s.name());
            if (t == null || t.error() != null || t.tools() == null) {
                problems.add(t == null || t.error() == null ? "MCP server '" + s.name() + "' was not listed by the"
                        + " tool runner; its tools are not offered" : t.error());
                continue;
            }
            Built b = build(s, t);
            if (!b.skipped().isEmpty()) {
                problems.add("MCP server '" + s.name() + "': tools not offered, their names are not usable by a model"
                        + " (at most 64 letters, digits, '_' or '-' with the prefix mcp__" + s.name() + "__): "
                        + String.join(", ", b.skipped()));
            }
            for (McpTool tool : b.tools()) {
                if (tools.putIfAbsent(tool.name(), tool) == null) {
                    specs.add(tool.spec());
                }
            }
        }
        return new Offer(Map.copyOf(tools), List.copyOf(specs), List.copyOf(problems));
    }

    private Built build(McpServerConfig s, McpServerTools t) {
        String key = s.name() + "/" + s.fingerprint() + "/" + t.version() + "/" + t.tools().hashCode();
        Built b = built.get(key);
        if (b != null) {
            return b;
        }
        List<McpTool> tools = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (McpToolInfo info : t.tools()) {
            McpTool.of(s, info, gateway).ifPresentOrElse(tools::add, () -> skipped.add(String.valueOf(info.name())));
        }
        if (built.size() >= MAX_KEPT) {
            built.clear();
        }
        b = new Built(List.copyOf(tools), List.copyOf(skipped));
        built.put(key, b);
        return b;
    }
}
