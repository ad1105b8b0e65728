package dev.cohort.core.tools.mcp;

import dev.cohort.core.mcp.McpServerConfig;
import dev.cohort.core.mcp.McpToolInfo;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.PermissionSubject;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonRawSchema;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One tool of a team's MCP server as the model sees it: {@code mcp__<server>__<tool>}, the server's description and
 * input schema. It goes through every gate of a tool call (permission rules such as {@code mcp__github__*}, approvals,
 * hooks, budgets, tracing); the team's rules not allowing it, it is asked, since it is code Cohort did not write. Plan
 * mode refuses it unless the server declares it read-only ({@code readOnlyHint}); a local server then runs with the
 * workspace mounted read-only.
 */
public final class McpTool implements Tool {
    /** The names model APIs accept for a tool. */
    static final Pattern MODEL_NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    /** The rule an MCP call is asked under when the team's rules do not allow it. */
    public static final String ASK_RULE = "mcp-tool";
    /** Longest description sent to the model. */
    static final int MAX_DESCRIPTION = 2_000;

    private final McpServerConfig server;
    private final McpToolInfo info;
    private final String name;
    private final ToolSpecification spec;
    private final McpGateway gateway;

    private McpTool(McpServerConfig server, McpToolInfo info, String name, McpGateway gateway) {
        this.server = server;
        this.info = info;
        this.name = name;
        this.gateway = gateway;
        String d = info.description() == null || info.description().isBlank() ? info.name() : info.description();
        if (d.length() > MAX_DESCRIPTION) {
            d = d.substring(0, MAX_DESCRIPTION) + " …";
        }
        this.spec = ToolSchemas.spec(name, "(tool of MCP server " + server.name() + ") " + d,
                parameters(info.inputSchema()));
    }

    /** The tool's name for the model: {@code mcp__<server>__<tool>}. */
    public static String qualified(String server, String tool) {
        return "mcp__" + server + "__" + tool;
    }

    /**
     * The tool {@code info} of {@code server}, or empty when its name cannot be offered to a model (longer than 64
     * characters with the prefix, or characters other than letters, digits, '_' and '-').
     */
    public static Optional<McpTool> of(McpServerConfig server, McpToolInfo info, McpGateway gateway) {
        if (info == null || info.name() == null) {
            return Optional.empty();
        }
        String name = qualified(server.name(), info.name());
        if (!MODEL_NAME.matcher(name).matches()) {
            return Optional.empty();
        }
        return Optional.of(new McpTool(server, info, name, gateway));
    }

    /** The server this tool belongs to. */
    public McpServerConfig server() {
        return server;
    }

    /** The server's own name for it. */
    public String toolName() {
        return info.name();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public ToolSpecification spec() {
        return spec;
    }

    @Override
    public Set<AgentRole> roles() {
        // which agents get a server is its configuration's agents; a subagent gets its parent's
        return Set.of(AgentRole.LEAD, AgentRole.TEAMMATE, AgentRole.SUBAGENT);
    }

    @Override
    public boolean isMutating() {
        return !info.readOnly();
    }

    @Override
    public PermissionSubject permissionSubject(ObjectNode args) {
        return new PermissionSubject.Destructive(ASK_RULE, "'" + name + "', a tool of MCP server '" + server.name()
                + "' (code Cohort did not write)");
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        return gateway.call(server, name, call.id(), call.args(),
                new WorkspaceToolExecutor.Target(ctx.team(), ctx.agent(), ctx.cwd(), ctx.readOnly())).toResult();
    }

    /**
     * The parameters of an input schema: its properties as the engine's schema elements where they are of the kinds
     * it checks, each other property sent to the model as written (and left to the server to check); a schema that is
     * not an object accepts any object.
     */
    public static JsonObjectSchema parameters(JsonNode schema) {
        JsonObjectSchema.Builder b = JsonObjectSchema.builder();
        if (schema == null || !schema.isObject() || !"object".equals(schema.path("type").asText("object"))) {
            return b.additionalProperties(true).build();
        }
        JsonNode props = schema.path("properties");
        for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> p = it.next();
            ObjectNode wrapper = dev.cohort.core.protocol.Json.MAPPER.createObjectNode();
            wrapper.put("type", "object");
            wrapper.putObject("properties").set(p.getKey(), p.getValue());
            try {
                b.addProperties(ToolSchemas.objectFromJson(wrapper).properties());
            } catch (IllegalArgumentException e) {
                b.addProperty(p.getKey(), JsonRawSchema.from(p.getValue().toString()));
            }
        }
        List<String> required = new ArrayList<>();
        schema.path("required").forEach(r -> required.add(r.asText()));
        if (!required.isEmpty()) {
            b.required(required);
        }
        JsonNode extra = schema.get("additionalProperties");
        b.additionalProperties(extra == null || !extra.isBoolean() || extra.asBoolean());
        return b.build();
    }
}
