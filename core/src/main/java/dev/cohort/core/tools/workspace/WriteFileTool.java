package dev.cohort.core.tools.workspace;

import dev.cohort.core.tools.PermissionSubject;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.tools.ToolSchemas;

/** {@code write_file}: Create or overwrite a workspace file with the given content (parent directories are created). Runs in the tool runner. */
public final class WriteFileTool extends WorkspaceTool {
    public static final String NAME = "write_file";

    public WriteFileTool() {
        super(ToolSchemas.spec(NAME, "Create or overwrite a workspace file with the given content (parent directories are created).",
                ToolSchemas.object().addProperty("path", ToolSchemas.string("workspace-relative path")).addProperty("content", ToolSchemas.string("the whole new file content")).required("path", "content").build()), true);
    }

    /** The file written: asks outside the workspace and in the protected config directory. */
    @Override
    public PermissionSubject permissionSubject(ObjectNode args) {
        return new PermissionSubject.FileWrite(args.path("path").asText(""));
    }
}
