package dev.cohort.core.tools.workspace;

import dev.cohort.core.tools.ToolSchemas;

/** {@code glob}: Find workspace files by glob pattern (recursive with **), newest first. Runs in the tool runner. */
public final class GlobTool extends WorkspaceTool {
    public static final String NAME = "glob";

    public GlobTool() {
        super(ToolSchemas.spec(NAME, "Find workspace files by glob pattern (recursive with **), newest first.",
                ToolSchemas.object().addProperty("pattern", ToolSchemas.string("e.g. '**/*.java'")).addProperty("path", ToolSchemas.string("directory to search from (default: the working directory)")).required("pattern").build()), false);
    }
}
