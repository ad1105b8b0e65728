package dev.cohort.core.tools.workspace;

import dev.cohort.core.tools.PermissionSubject;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.tools.ToolSchemas;

/** {@code edit_file}: Replace text in a workspace file. old_text must match exactly once unless replace_all is true. Runs in the tool runner. */
public final class EditFileTool extends WorkspaceTool {
    public static final String NAME = "edit_file";

    public EditFileTool() {
        super(ToolSchemas.spec(NAME, "Replace text in a workspace file. old_text must match exactly once unless replace_all is true.",
                ToolSchemas.object().addProperty("path", ToolSchemas.string("workspace-relative path")).addProperty("old_text", ToolSchemas.string("the exact text to replace")).addProperty("new_text", ToolSchemas.string("the replacement")).addProperty("replace_all", ToolSchemas.bool("replace every occurrence")).required("path", "old_text", "new_text").build()), true);
    }

    /** The file written: asks outside the workspace and in the protected config directory. */
    @Override
    public PermissionSubject permissionSubject(ObjectNode args) {
        return new PermissionSubject.FileWrite(args.path("path").asText(""));
    }
}
