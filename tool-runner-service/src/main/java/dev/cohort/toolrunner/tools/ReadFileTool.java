package dev.cohort.toolrunner.tools;

import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.toolrunner.calls.Args;
import dev.cohort.toolrunner.calls.DeclaredTool;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.ToolError;
import dev.cohort.toolrunner.workspace.ContainedFiles;
import dev.cohort.toolrunner.workspace.OutputStore;
import dev.cohort.toolrunner.workspace.TextFiles;
import dev.cohort.toolrunner.workspace.ToolContext;
import dev.langchain4j.agent.tool.ToolSpecification;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/**
 * {@code read_file {path, offset?, limit?}}: numbered lines ({@code cat -n} style) from line {@code offset}
 * (1-based), at most {@code limit} lines and a character cap, with a notice saying how to continue; binary files
 * are a clear error. Also reads stored outputs ({@code cohort-output://…}).
 */
@ApplicationScoped
public class ReadFileTool extends DeclaredTool {
    /** The name the model calls it by. */
    public static final String NAME = "read_file";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Read a text file of the workspace; lines are numbered. Use offset/limit to page through long files.",
            ToolSchemas.object().addProperty("path", ToolSchemas.string("workspace-relative path (or a cohort-output:// reference)")).addProperty("offset", ToolSchemas.integer("1-based first line to show")).addProperty("limit", ToolSchemas.integer("maximum number of lines")).required("path").build());

    public ReadFileTool() {
        super(SPEC, false);
    }

    @Inject
    ToolRunnerConfig config;
    @Inject
    OutputStore outputs;

    @Override
    public ToolCallResult execute(ToolContext ctx, Args args) throws IOException {
        String path = args.string("path");
        Integer offset = args.optInt("offset");
        Integer limit = args.optInt("limit");
        if (offset != null && offset < 1) {
            throw ToolError.badArgument("offset is a 1-based line number and must be at least 1");
        }
        if (limit != null && limit < 1) {
            throw ToolError.badArgument("limit must be at least 1");
        }
        int from = offset == null ? 1 : offset;
        int max = limit == null ? config.read().defaultLineLimit() : limit;
        boolean ref = OutputStore.isRef(path);
        Path file = ref ? outputs.resolveRef(ctx.team(), path) : ctx.resolve(path);
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new ToolError("not-found", "file not found: " + path);
        }
        if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new ToolError("is-directory", "'" + path + "' is a directory; use glob to list files");
        }
        // A workspace file is opened from the root's directory handle without following links, so a directory
        // swapped for a link since the check above cannot lead the read outside; the check for binary content and
        // the read below use this one open file. Stored outputs live in the runner's state, out of any command's reach.
        SeekableByteChannel ch;
        try {
            ch = ref ? Files.newByteChannel(file, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))
                    : ContainedFiles.openForRead(ctx.root(), file, path);
        } catch (NoSuchFileException e) {
            throw new ToolError("not-found", "file not found: " + path);
        }
        try {
            if (TextFiles.looksBinary(ch)) {
                throw new ToolError("binary-file", "'" + path + "' is a binary file; read_file shows text only"
                        + " (inspect it with bash, e.g. 'file' or 'xxd | head')");
            }
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
        int cap = config.read().charCap();
        int maxLine = config.read().maxLineChars();
        StringBuilder out = new StringBuilder();
        int lineNo = 0;
        int shown = 0;
        String notice = null;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
                Channels.newInputStream(ch), StandardCharsets.UTF_8.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)))) {
            String line;
            while ((line = r.readLine()) != null) {
                lineNo++;
                if (lineNo < from) {
                    continue;
                }
                if (shown == max) {
                    notice = "[… more lines follow; continue with offset=" + lineNo + "]";
                    break;
                }
                if (line.length() > maxLine) {
                    line = line.substring(0, maxLine) + " … [line cut at " + maxLine + " characters]";
                }
                String numbered = String.format("%6d\t%s%n", lineNo, line);
                if (out.length() + numbered.length() > cap && shown > 0) {
                    notice = "[… output capped at " + cap + " characters; continue with offset=" + lineNo + "]";
                    break;
                }
                out.append(numbered);
                shown++;
            }
        } catch (CharacterCodingException e) {
            throw new ToolError("binary-file", "'" + path + "' is not valid UTF-8 text (near line " + (lineNo + 1)
                    + "); read_file shows text only");
        } catch (NoSuchFileException e) {
            throw new ToolError("not-found", "file not found: " + path);
        }
        if (shown == 0) {
            String msg = lineNo == 0 ? "(empty file)"
                    : "(the file has " + lineNo + " lines; offset " + from + " is past the end)";
            return ToolCallResult.ok(msg, 0);
        }
        if (notice != null) {
            out.append(notice);
        }
        return new ToolCallResult(out.toString(), null, null, notice != null ? Boolean.TRUE : null, null, 0);
    }
}
