package dev.cohort.core.tools.workspace;

import dev.cohort.core.tools.ToolSchemas;

/** {@code bash}: Run one shell command (bash) in the workspace and return its output and exit code. Commands run non-interactively (stdin is empty), with a timeout; long output keeps head and tail. Runs in the tool runner. */
public final class BashTool extends WorkspaceTool {
    public static final String NAME = "bash";

    public BashTool() {
        super(ToolSchemas.spec(NAME, "Run one shell command (bash) in the workspace and return its output and exit code. Commands run non-interactively (stdin is empty), with a timeout; long output keeps head and tail.",
                ToolSchemas.object().addProperty("command", ToolSchemas.string("the command line, e.g. 'ls -la' or 'mvn -q test'")).required("command").build()));
    }

    @Override
    public boolean isMutating() {
        return true;
    }
}
