package dev.cohort.host.engine;

import dev.cohort.core.tools.AgentRole;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A {@link ToolProvider} whose roles and order are fixed when it is made: a subclass names them in its constructor
 * and implements only {@link #tools()}.
 */
public abstract class RoleTools implements ToolProvider {
    private final int order;
    private final Set<AgentRole> roles;

    protected RoleTools(int order, AgentRole role, AgentRole... more) {
        this.order = order;
        Set<AgentRole> all = new HashSet<>(List.of(more));
        all.add(role);
        this.roles = Set.copyOf(all);
    }

    @Override
    public final Set<AgentRole> roles() {
        return roles;
    }

    @Override
    public final int order() {
        return order;
    }
}
