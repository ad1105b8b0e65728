package dev.cohort.core.tools.workspace;

import dev.cohort.core.toolrunner.ToolDescriptor;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolNames;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The workspace tools an agent service offers: one {@link RemoteWorkspaceTool} per entry of the tool runner's
 * catalogue, in the catalogue's order. Which of them change nothing is read from their entries, so what keeps a
 * cached read valid ({@link WorkspaceReadCache}) follows the tools' own declarations.
 */
public final class WorkspaceCatalogue {
    private final Map<String, RemoteWorkspaceTool> tools = new LinkedHashMap<>();

    /**
     * @throws IllegalArgumentException when two entries share a name or an entry's schema cannot be read
     */
    public WorkspaceCatalogue(Collection<ToolDescriptor> entries) {
        for (ToolDescriptor d : entries) {
            RemoteWorkspaceTool t;
            try {
                t = new RemoteWorkspaceTool(d);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("the tool runner's catalogue entry '" + d.name() + "' is not usable: "
                        + e.getMessage(), e);
            }
            if (tools.putIfAbsent(d.name(), t) != null) {
                throw new IllegalArgumentException("the tool runner's catalogue lists '" + d.name() + "' twice");
            }
        }
        ToolNames.add(tools.keySet());
    }

    /** The tools, in the catalogue's order. */
    public List<Tool> all() {
        return List.copyOf(tools.values());
    }

    /** The tools an agent of {@code role} gets, in the catalogue's order. */
    public List<Tool> forRole(AgentRole role) {
        return tools.values().stream().filter(t -> t.roles().contains(role)).map(Tool.class::cast).toList();
    }

    /** The tool named {@code name}. */
    public Optional<Tool> find(String name) {
        return Optional.ofNullable(tools.get(name));
    }

    /** The tools' names. */
    public Set<String> names() {
        return Set.copyOf(tools.keySet());
    }

    /** {@code true} when {@code tool} is in the catalogue and declares that it changes nothing. */
    public boolean changesNothing(String tool) {
        RemoteWorkspaceTool t = tools.get(tool);
        return t != null && !t.isMutating();
    }
}
