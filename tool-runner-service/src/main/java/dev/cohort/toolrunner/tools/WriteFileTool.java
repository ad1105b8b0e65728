package dev.cohort.toolrunner.tools;

import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.toolrunner.ToolDescriptor;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.toolrunner.calls.Args;
import dev.cohort.toolrunner.calls.DeclaredTool;
import dev.cohort.toolrunner.ToolError;
import dev.cohort.toolrunner.workspace.FileLocks;
import dev.cohort.toolrunner.workspace.TextFiles;
import dev.cohort.toolrunner.workspace.ToolContext;
import dev.langchain4j.agent.tool.ToolSpecification;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;

/** {@code write_file {path, content}}: atomic (temp file + rename), creates parents, reports bytes written. */
@ApplicationScoped
public class WriteFileTool extends DeclaredTool {
    /** The name the model calls it by. */
    public static final String NAME = "write_file";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Create or overwrite a workspace file with the given content (parent directories are created).",
            ToolSchemas.object().addProperty("path", ToolSchemas.string("workspace-relative path")).addProperty("content", ToolSchemas.string("the whole new file content")).required("path", "content").build());

    public WriteFileTool() {
        super(SPEC, true, EVERY_AGENT, ToolDescriptor.Subject.fileWrite("path"));
    }

    @Inject
    FileLocks locks;

    @Override
    public ToolCallResult execute(ToolContext ctx, Args args) throws IOException {
        String path = args.string("path");
        String content = args.string("content");
        Path file = ctx.resolveForWrite(path);
        if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new ToolError("is-directory", "'" + path + "' is a directory");
        }
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        ReentrantLock lock = locks.of(file);
        boolean existed;
        lock.lock();
        try {
            existed = Files.exists(file, LinkOption.NOFOLLOW_LINKS);
            TextFiles.writeAtomically(ctx.root(), ctx.foreign(), file, bytes, path);
        } finally {
            lock.unlock();
        }
        return ToolCallResult.ok((existed ? "Overwrote " : "Created ") + ctx.display(file) + ": wrote "
                + bytes.length + " bytes", 0);
    }
}
