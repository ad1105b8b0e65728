package dev.cohort.core.tools;

import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * All tools a host offers, by name (CONVENTIONS #5). Construction fails on a duplicate or blank name, so a
 * mis-wired service does not start. Immutable and thread-safe. A {@linkplain #deferred deferred} registry learns its
 * tools on first use (a service whose workspace tools come from the tool runner's catalogue starts without waiting for
 * the runner).
 */
public final class ToolRegistry {
    private volatile Map<String, Tool> tools;
    private final Supplier<? extends Collection<? extends Tool>> source;
    /** Specs per allowlist: the same few allowlists are asked for on every model call. */
    private final Map<Set<String>, List<ToolSpecification>> specCache = new ConcurrentHashMap<>();

    private ToolRegistry(Map<String, Tool> tools) {
        this.tools = Collections.unmodifiableMap(tools);
        this.source = null;
    }

    private ToolRegistry(Supplier<? extends Collection<? extends Tool>> source) {
        this.source = source;
    }

    /**
     * A registry whose tools {@code source} gives on first use, checked as {@link #of} checks them. A first use that
     * fails (the source throws, e.g. the tool runner did not answer) fails that use only: the next one asks again.
     */
    public static ToolRegistry deferred(Supplier<? extends Collection<? extends Tool>> source) {
        return new ToolRegistry(Objects.requireNonNull(source, "source"));
    }

    private Map<String, Tool> tools() {
        Map<String, Tool> t = tools;
        if (t == null) {
            synchronized (this) {
                t = tools;
                if (t == null) {
                    t = of(source.get()).tools;
                    tools = t;
                }
            }
        }
        return t;
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
        List<Tool> all = new ArrayList<>(tools().values());
        all.addAll(more);
        return of(all);
    }

    public Optional<Tool> find(String name) {
        return Optional.ofNullable(name == null ? null : tools().get(name));
    }

    public Set<String> names() {
        return tools().keySet();
    }

    /** The tools, in registration order. */
    public Collection<Tool> all() {
        return tools().values();
    }

    /** The specs of the registered tools in {@code allowed}, in registration order (what the model is offered). */
    public List<ToolSpecification> specs(Set<String> allowed) {
        Map<String, Tool> byName = tools();
        return specCache.computeIfAbsent(Set.copyOf(allowed), a -> byName.values().stream()
                .filter(t -> a.contains(t.name())).map(Tool::spec).toList());
    }
}
