package dev.cohort.core.tools.workspace;

import dev.cohort.core.tools.PermissionSubject;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.tools.ToolSchemas;

/** {@code bash}: Run one shell command (bash) in the workspace and return its output and exit code. Commands run non-interactively (stdin is empty), with a timeout; long output keeps head and tail. Runs in the tool runner. */
public final class BashTool extends WorkspaceTool {
    public static final String NAME = "bash";

    public BashTool() {
        super(ToolSchemas.spec(NAME, "Run one shell command (bash) in the workspace and return its output and exit code. Commands run non-interactively (stdin is empty), with a timeout; long output keeps head and tail.",
                ToolSchemas.object().addProperty("command", ToolSchemas.string("the command line, e.g. 'ls -la' or 'mvn -q test'"))
                        .addProperty("run_in_background", ToolSchemas.bool("run it as a background job: the call returns its"
                                + " job id at once and a background_done message arrives when it ends (check_background,"
                                + " cancel_background)"))
                        .required("command").build()), true);
    }

    /** The command, for the shared command rule set (hard denies, asks, read-only commands). */
    @Override
    public PermissionSubject permissionSubject(ObjectNode args) {
        return new PermissionSubject.Command(args.path("command").asText(""));
    }
}
