package dev.cohort.toolrunner.tools;

import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.calls.Args;
import dev.cohort.toolrunner.calls.Tool;
import dev.cohort.toolrunner.ToolError;
import dev.cohort.toolrunner.workspace.FileLocks;
import dev.cohort.toolrunner.workspace.TextFiles;
import dev.cohort.toolrunner.workspace.ToolContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;
import java.util.Set;

/** {@code write_file {path, content}}: atomic (temp file + rename), creates parents, reports bytes written. */
@ApplicationScoped
public class WriteFileTool implements Tool {
    @Inject
    FileLocks locks;

    @Override
    public String name() {
        return "write_file";
    }

    @Override
    public Set<String> arguments() {
        return Set.of("path", "content");
    }

    @Override
    public boolean isMutating() {
        return true;
    }

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
