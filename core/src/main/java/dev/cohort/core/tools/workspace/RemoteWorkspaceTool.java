package dev.cohort.core.tools.workspace;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.toolrunner.ToolDescriptor;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.PermissionSubject;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A file or shell tool of the tool runner's catalogue, as the engine offers it: the spec, roles, mutability and
 * permission subject are the runner's entry ({@link ToolDescriptor}); a call goes to the context's
 * {@link WorkspaceToolExecutor} with the host-chosen cwd (the engine never touches files). One class for every
 * workspace tool: a tool is declared once, where it runs.
 */
public class RemoteWorkspaceTool implements Tool {
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([a-z_]+)}");

    private final ToolDescriptor descriptor;
    private final ToolSpecification spec;
    private final Set<AgentRole> roles;

    /**
     * @throws IllegalArgumentException when the entry's parameter schema cannot be read
     */
    public RemoteWorkspaceTool(ToolDescriptor descriptor) {
        this.descriptor = Objects.requireNonNull(descriptor, "descriptor");
        this.spec = ToolSchemas.spec(descriptor.name(), descriptor.description(),
                ToolSchemas.objectFromJson(descriptor.parameters()));
        Set<AgentRole> r = new HashSet<>();
        for (String role : descriptor.roles()) {
            AgentRole.named(role).ifPresent(r::add); // a role this process does not know gives nothing here
        }
        this.roles = Set.copyOf(r);
    }

    /** The catalogue entry this tool was made from. */
    public ToolDescriptor descriptor() {
        return descriptor;
    }

    @Override
    public String name() {
        return descriptor.name();
    }

    @Override
    public ToolSpecification spec() {
        return spec;
    }

    @Override
    public Set<AgentRole> roles() {
        return roles;
    }

    @Override
    public boolean isMutating() {
        return descriptor.mutating();
    }

    /** The subject the entry describes, read from the call's validated arguments; an unknown kind is none. */
    @Override
    public PermissionSubject permissionSubject(ObjectNode args) {
        ToolDescriptor.Subject s = descriptor.permission();
        String arg = s.argument() == null ? "" : s.argument();
        return switch (s.kind() == null ? "none" : s.kind()) {
            case "path" -> args.hasNonNull(arg) ? new PermissionSubject.Path(args.path(arg).asText())
                    : PermissionSubject.NONE;
            case "command" -> new PermissionSubject.Command(args.path(arg).asText(""));
            case "file-write" -> new PermissionSubject.FileWrite(args.path(arg).asText(""));
            case "destructive" -> s.when() != null && args.path(s.when()).asBoolean(false)
                    ? new PermissionSubject.Destructive(s.rule(), fill(s.reason(), args)) : PermissionSubject.NONE;
            default -> PermissionSubject.NONE;
        };
    }

    private static String fill(String template, ObjectNode args) {
        if (template == null) {
            return "";
        }
        Matcher m = PLACEHOLDER.matcher(template);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(args.path(m.group(1)).asText("")));
        }
        return m.appendTail(out).toString();
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        ToolOutcome outcome = ctx.workspace().execute(name(), call.id(), call.args(),
                new WorkspaceToolExecutor.Target(ctx.team(), ctx.agent(), ctx.cwd(), ctx.readOnly()));
        return outcome.toResult();
    }
}
