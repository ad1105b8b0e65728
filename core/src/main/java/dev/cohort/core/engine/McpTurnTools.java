package dev.cohort.core.engine;

import dev.cohort.core.mcp.McpServerConfig;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.mcp.McpToolbox;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The MCP tools of one loop: the agent's servers' tools, listed again before every model call ({@link #refresh}), so a
 * server's changed list ({@code notifications/tools/list_changed}) is offered at the next step. A loop without servers
 * costs nothing. A server that cannot be listed is reported once per distinct problem and the loop goes on without
 * its tools.
 */
final class McpTurnTools {
    static final McpTurnTools NONE = new McpTurnTools(null, null, null, List.of(), () -> false, p -> {
    });

    private final McpToolbox toolbox;
    private final String team;
    private final String agent;
    private final List<McpServerConfig> servers;
    private final BooleanSupplier readOnly;
    private final Consumer<String> problems;
    private final Set<String> reported = new HashSet<>();
    private volatile McpToolbox.Offer offer = McpToolbox.Offer.NONE;
    /** The tools were listed in this loop (a call resumed before the loop's first model call lists them first). */
    private volatile boolean listed;

    McpTurnTools(McpToolbox toolbox, String team, String agent, List<McpServerConfig> servers, BooleanSupplier readOnly,
            Consumer<String> problems) {
        this.toolbox = toolbox;
        this.team = team;
        this.agent = agent;
        this.servers = List.copyOf(servers);
        this.readOnly = readOnly;
        this.problems = problems;
    }

    /** The servers of this loop. */
    List<McpServerConfig> servers() {
        return servers;
    }

    /** Lists the servers' tools again (a step's start). */
    void refresh() {
        if (servers.isEmpty() || toolbox == null) {
            return;
        }
        listed = true;
        McpToolbox.Offer now;
        try {
            now = toolbox.offer(team, agent, readOnly.getAsBoolean(), servers);
        } catch (RuntimeException e) {
            // the runner did not answer: this step keeps the tools it last listed
            report(List.of("cannot list the MCP servers' tools through the tool runner: " + e.getMessage()
                    + "; this step offers the tools last listed (" + offer.tools().size() + ")"));
            return;
        }
        offer = now;
        report(now.problems());
    }

    private void report(List<String> now) {
        synchronized (reported) {
            for (String p : now) {
                if (reported.add(p)) {
                    problems.accept(p);
                }
            }
        }
    }

    Optional<Tool> find(String name) {
        if (!listed) {
            refresh(); // a call approved while the turn was parked runs before the resumed loop's first model call
        }
        return offer.tool(name);
    }

    /** The MCP server of the offered tool {@code name}. */
    Optional<String> server(String name) {
        return offer.server(name);
    }

    /** {@code base} followed by the MCP tools' specs. */
    List<ToolSpecification> specs(List<ToolSpecification> base) {
        List<ToolSpecification> mcp = offer.specs();
        if (mcp.isEmpty()) {
            return base;
        }
        List<ToolSpecification> all = new ArrayList<>(base.size() + mcp.size());
        all.addAll(base);
        all.addAll(mcp);
        return all;
    }

    /** The names of the MCP tools offered now. */
    Set<String> names() {
        return offer.tools().keySet();
    }
}
