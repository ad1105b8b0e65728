package dev.cohort.core.tools;

import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * All tools a host offers, by name (CONVENTIONS #5). Construction fails on a duplicate or blank name, so a
 * mis-wired service does not start. Immutable and thread-safe.
 */
public final class ToolRegistry {
    private final Map<String, Tool> tools;
    /** Specs per allowlist: the same few allowlists are asked for on every model call. */
    private final Map<Set<String>, List<ToolSpecification>> specCache = new ConcurrentHashMap<>();

    private ToolRegistry(Map<String, Tool> tools) {
        this.tools = Collections.unmodifiableMap(tools);
    }

    /** A registry of {@code tools}, in the given order; throws {@link IllegalStateException} on a duplicate name. */
    public static ToolRegistry of(Collection<? extends Tool> tools) {
        Map<String, Tool> byName = new LinkedHashMap<>();
        for (Tool t : tools) {
            String name = t.name();
            if (name == null || name.isBlank()) {
                throw new IllegalStateException("tool " + t.getClass().getName() + " has no name");
            }
            if (!name.equals(t.spec().name())) {
                throw new IllegalStateException("tool " + name + " has a spec named " + t.spec().name());
            }
            Tool previous = byName.putIfAbsent(name, t);
            if (previous != null) {
                throw new IllegalStateException("duplicate tool name '" + name + "': " + previous.getClass().getName()
                        + " and " + t.getClass().getName());
            }
        }
        ToolNames.add(byName.keySet());
        return new ToolRegistry(byName);
    }

    public static ToolRegistry of(Tool... tools) {
        return of(List.of(tools));
    }

    /** A new registry with {@code more} added (duplicates still fail). */
    public ToolRegistry with(Collection<? extends Tool> more) {
        List<Tool> all = new ArrayList<>(tools.values());
        all.addAll(more);
        return of(all);
    }

    public Optional<Tool> find(String name) {
        return Optional.ofNullable(name == null ? null : tools.get(name));
    }

    public Set<String> names() {
        return tools.keySet();
    }

    /** The tools, in registration order. */
    public Collection<Tool> all() {
        return tools.values();
    }

    /** The specs of the registered tools in {@code allowed}, in registration order (what the model is offered). */
    public List<ToolSpecification> specs(Set<String> allowed) {
        return specCache.computeIfAbsent(Set.copyOf(allowed), a -> tools.values().stream()
                .filter(t -> a.contains(t.name())).map(Tool::spec).toList());
    }
}
