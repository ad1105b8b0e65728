package dev.cohort.toolrunner.calls;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/** All {@link Tool} beans by name; a duplicate name fails the start-up. */
@ApplicationScoped
public class ToolRegistry {
    private final Map<String, Tool> tools = new TreeMap<>();

    @Inject
    public ToolRegistry(Instance<Tool> all) {
        for (Tool t : all) {
            Tool prev = tools.putIfAbsent(t.name(), t);
            if (prev != null) {
                throw new IllegalStateException("two tools are named '" + t.name() + "': "
                        + prev.getClass().getName() + " and " + t.getClass().getName());
            }
        }
    }

    public Optional<Tool> find(String name) {
        return Optional.ofNullable(tools.get(name));
    }

    public Set<String> names() {
        return tools.keySet();
    }

    /** The tools, by name. */
    public Collection<Tool> all() {
        return tools.values();
    }
}
