package dev.cohort.core.tools;

import dev.langchain4j.agent.tool.ToolSpecification;

/**
 * A tool whose name, spec and mutating flag are fixed when it is made; subclasses only implement
 * {@link #execute}.
 */
public abstract class SpecifiedTool implements Tool {
    private final ToolSpecification spec;
    private final boolean mutating;

    protected SpecifiedTool(ToolSpecification spec, boolean mutating) {
        this.spec = spec;
        this.mutating = mutating;
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
    public final boolean isMutating() {
        return mutating;
    }
}
