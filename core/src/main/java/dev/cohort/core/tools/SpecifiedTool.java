package dev.cohort.core.tools;

import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.Set;

/**
 * A tool whose name, spec, mutating flag and roles are fixed when it is made; subclasses only implement
 * {@link #execute}.
 */
public abstract class SpecifiedTool implements Tool {
    private final ToolSpecification spec;
    private final boolean mutating;
    private final Set<AgentRole> roles;

    /** A tool of the lead and the teammates. */
    protected SpecifiedTool(ToolSpecification spec, boolean mutating) {
        this(spec, mutating, LEAD_AND_TEAMMATES);
    }

    protected SpecifiedTool(ToolSpecification spec, boolean mutating, Set<AgentRole> roles) {
        this.spec = spec;
        this.mutating = mutating;
        this.roles = Set.copyOf(roles);
    }

    @Override
    public final String name() {
        return spec.name();
    }

    @Override
    public final ToolSpecification spec() {
        return spec;
    }

    @Override
    public final Set<AgentRole> roles() {
        return roles;
    }

    @Override
    public final boolean isMutating() {
        return mutating;
    }
}
