package dev.cohort.core.tools.workspace;

import dev.cohort.core.tools.ToolSchemas;

/** {@code read_file}: Read a text file of the workspace; lines are numbered. Use offset/limit to page through long files. Runs in the tool runner. */
public final class ReadFileTool extends WorkspaceTool {
    public static final String NAME = "read_file";

    public ReadFileTool() {
        super(ToolSchemas.spec(NAME, "Read a text file of the workspace; lines are numbered. Use offset/limit to page through long files.",
                ToolSchemas.object().addProperty("path", ToolSchemas.string("workspace-relative path (or a cohort-output:// reference)")).addProperty("offset", ToolSchemas.integer("1-based first line to show")).addProperty("limit", ToolSchemas.integer("maximum number of lines")).required("path").build()), false);
    }
}
