package dev.cohort.core.tools.workspace;

import dev.cohort.core.tools.ToolSchemas;

/** {@code grep}: Search file contents with a regular expression; returns path:line:text matches. Runs in the tool runner. */
public final class GrepTool extends WorkspaceTool {
    public static final String NAME = "grep";

    public GrepTool() {
        super(ToolSchemas.spec(NAME, "Search file contents with a regular expression; returns path:line:text matches.",
                ToolSchemas.object().addProperty("pattern", ToolSchemas.string("a Java regular expression")).addProperty("path", ToolSchemas.string("file or directory to search (default: the working directory)")).addProperty("glob", ToolSchemas.string("only files matching this glob, e.g. '*.py'")).addProperty("ignore_case", ToolSchemas.bool("case-insensitive match")).addProperty("max_results", ToolSchemas.integer("maximum number of matches")).required("pattern").build()), false);
    }
}
