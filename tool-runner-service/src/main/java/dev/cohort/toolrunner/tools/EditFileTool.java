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

/**
 * {@code edit_file {path, old_text, new_text, replace_all?}}: exact replacement; refuses an empty or absent
 * {@code old_text}, and one found several times unless {@code replace_all} (saying how many times). Keeps CRLF line
 * endings (an LF-only {@code old_text} matches a CRLF file); strict UTF-8; atomic; serialised per file.
 */
@ApplicationScoped
public class EditFileTool extends DeclaredTool {
    /** The name the model calls it by. */
    public static final String NAME = "edit_file";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Replace text in a workspace file. old_text must match exactly once unless replace_all is true.",
            ToolSchemas.object().addProperty("path", ToolSchemas.string("workspace-relative path")).addProperty("old_text", ToolSchemas.string("the exact text to replace")).addProperty("new_text", ToolSchemas.string("the replacement")).addProperty("replace_all", ToolSchemas.bool("replace every occurrence")).required("path", "old_text", "new_text").build());

    public EditFileTool() {
        super(SPEC, true, EVERY_AGENT, ToolDescriptor.Subject.fileWrite("path"));
    }

    @Inject
    FileLocks locks;

    @Override
    public ToolCallResult execute(ToolContext ctx, Args args) throws IOException {
        String path = args.string("path");
        String oldText = args.string("old_text");
        String newText = args.string("new_text");
        boolean all = Boolean.TRUE.equals(args.optBool("replace_all"));
        if (oldText.isEmpty()) {
            throw new ToolError("empty-old-text", "old_text is empty; to create or overwrite a whole file use write_file");
        }
        Path file = ctx.resolveForWrite(path);
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new ToolError("not-found", "file not found: " + path);
        }
        if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new ToolError("is-directory", "'" + path + "' is a directory");
        }
        ReentrantLock lock = locks.of(file);
        lock.lock();
        try {
            // read and written through directory handles from the root (TextFiles, ContainedFiles): a directory on
            // the way swapped for a link meanwhile fails the call instead of leading it outside
            String text = TextFiles.readUtf8(ctx.root(), file, path);
            String from = oldText;
            String to = newText;
            int count = count(text, from);
            if (count == 0 && text.contains("\r\n") && !oldText.contains("\r") && oldText.contains("\n")) {
                from = oldText.replace("\n", "\r\n");
                to = newText.contains("\r") ? newText : newText.replace("\n", "\r\n");
                count = count(text, from);
            }
            if (count == 0) {
                throw new ToolError("no-match", "old_text was not found in " + path
                        + "; it must match the file exactly, including whitespace and indentation");
            }
            if (count > 1 && !all) {
                throw new ToolError("ambiguous-match", "old_text occurs " + count + " times in " + path
                        + "; include more surrounding lines to make it unique, or set replace_all=true");
            }
            String result = all ? text.replace(from, to) : replaceFirst(text, from, to);
            TextFiles.writeAtomically(ctx.root(), ctx.foreign(), file, result.getBytes(StandardCharsets.UTF_8), path);
            return ToolCallResult.ok("Edited " + ctx.display(file) + ": replaced " + (all ? count : 1)
                    + " occurrence" + ((all ? count : 1) == 1 ? "" : "s"), 0);
        } finally {
            lock.unlock();
        }
    }

    static int count(String text, String needle) {
        int c = 0;
        int k = text.indexOf(needle);
        while (k >= 0) {
            c++;
            k = text.indexOf(needle, k + needle.length());
        }
        return c;
    }

    private static String replaceFirst(String text, String from, String to) {
        int k = text.indexOf(from);
        return text.substring(0, k) + to + text.substring(k + from.length());
    }
}
