package dev.cohort.toolrunner.calls;

import dev.cohort.core.toolrunner.ToolDescriptor;
import dev.cohort.core.tools.AgentRole;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.List;

/**
 * A {@link Tool} whose spec, mutability, roles and permission subject are fixed when it is made: a tool class passes
 * them to the constructor and implements only {@link #execute}.
 */
public abstract class DeclaredTool implements Tool {
    private final ToolSpecification spec;
    private final boolean mutating;
    private final List<AgentRole> roles;
    private final ToolDescriptor.Subject permission;

    /** A tool of every agent whose {@code path} argument, when given, is what a team rule is matched against. */
    protected DeclaredTool(ToolSpecification spec, boolean mutating) {
        this(spec, mutating, EVERY_AGENT, ToolDescriptor.Subject.PATH);
    }

    /** A tool of {@code roles} whose {@code path} argument, when given, is what a team rule is matched against. */
    protected DeclaredTool(ToolSpecification spec, boolean mutating, List<AgentRole> roles) {
        this(spec, mutating, roles, ToolDescriptor.Subject.PATH);
    }

    protected DeclaredTool(ToolSpecification spec, boolean mutating, List<AgentRole> roles,
            ToolDescriptor.Subject permission) {
        this.spec = spec;
        this.mutating = mutating;
        this.roles = List.copyOf(roles);
        this.permission = permission;
    }

    @Override
    public final ToolSpecification spec() {
        return spec;
    }

    @Override
    public final boolean isMutating() {
        return mutating;
    }

    @Override
    public final List<AgentRole> roles() {
        return roles;
    }

    @Override
    public final ToolDescriptor.Subject permission() {
        return permission;
    }
}
