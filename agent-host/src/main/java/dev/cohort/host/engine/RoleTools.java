package dev.cohort.host.engine;

import dev.cohort.core.tools.AgentRole;
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
        this.roles = more.length == 0 ? Set.of(role) : union(role, more);
    }

    @Override
    public final Set<AgentRole> roles() {
        return roles;
    }

    @Override
    public final int order() {
        return order;
    }

    private static Set<AgentRole> union(AgentRole role, AgentRole... more) {
        AgentRole[] all = new AgentRole[more.length + 1];
        all[0] = role;
        System.arraycopy(more, 0, all, 1, more.length);
        return Set.of(all);
    }
}
