package dev.cohort.toolrunner.tools;

import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.toolrunner.calls.Args;
import dev.cohort.toolrunner.calls.DeclaredTool;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.ToolError;
import dev.cohort.toolrunner.workspace.ContainedFiles;
import dev.cohort.toolrunner.workspace.FileWalker;
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
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.FileSystems;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code grep {pattern, path?, glob?, ignore_case?, max_results?}}: Java regex over text files under {@code path}
 * (a file or directory; default the cwd), {@code file:line:text} lines, binary and huge files skipped, capped with a
 * count of what was left out, bounded in time (also against catastrophic backtracking).
 */
@ApplicationScoped
public class GrepTool extends DeclaredTool {
    /** The name the model calls it by. */
    public static final String NAME = "grep";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Search file contents with a regular expression; returns path:line:text matches.",
            ToolSchemas.object().addProperty("pattern", ToolSchemas.string("a Java regular expression")).addProperty("path", ToolSchemas.string("file or directory to search (default: the working directory)")).addProperty("glob", ToolSchemas.string("only files matching this glob, e.g. '*.py'")).addProperty("ignore_case", ToolSchemas.bool("case-insensitive match")).addProperty("max_results", ToolSchemas.integer("maximum number of matches")).required("pattern").build());

    public GrepTool() {
        super(SPEC, false);
    }

    private static final int MAX_WALK = 500_000;

    @Inject
    ToolRunnerConfig config;

    @Override
    public ToolCallResult execute(ToolContext ctx, Args args) throws IOException {
        String regex = args.string("pattern");
        if (regex.isEmpty()) {
            throw ToolError.badArgument("pattern is empty");
        }
        Pattern p;
        try {
            p = Pattern.compile(regex, Boolean.TRUE.equals(args.optBool("ignore_case"))
                    ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0);
        } catch (PatternSyntaxException e) {
            throw ToolError.badArgument("invalid regular expression: " + e.getDescription() + " near index "
                    + e.getIndex());
        }
        Integer mr = args.optInt("max_results");
        int limit = config.search().grepMaxResults();
        if (mr != null && (mr < 1 || mr > limit)) {
            throw ToolError.badArgument("max_results must be between 1 and " + limit);
        }
        int max = mr == null ? config.search().grepDefaultResults() : mr;
        PathMatcher globM = null;
        PathMatcher globM2 = null;
        String glob = args.optString("glob", null);
        if (glob != null) {
            try {
                globM = FileSystems.getDefault().getPathMatcher("glob:" + glob);
                globM2 = glob.startsWith("**/") ? FileSystems.getDefault().getPathMatcher("glob:" + glob.substring(3)) : null;
            } catch (IllegalArgumentException e) {
                throw ToolError.badArgument("invalid glob: " + e.getMessage());
            }
        }
        Path base = args.has("path") ? ctx.resolve(args.string("path")) : ctx.cwd();
        if (!Files.exists(base, LinkOption.NOFOLLOW_LINKS)) {
            throw new ToolError("not-found", "path not found: " + args.optString("path", "."));
        }
        long deadline = System.nanoTime() + config.search().timeout().toNanos();
        List<FileWalker.Entry> files;
        boolean complete = true;
        if (Files.isDirectory(base, LinkOption.NOFOLLOW_LINKS)) {
            FileWalker.Listing l = FileWalker.walk(ctx.root(), base, deadline, MAX_WALK, ctx.foreign());
            files = l.files();
            complete = l.complete();
        } else {
            files = List.of(new FileWalker.Entry(base, 0, Files.size(base)));
        }
        int maxLine = config.search().grepMaxLineChars();
        StringBuilder out = new StringBuilder();
        int found = 0;
        scan:
        for (FileWalker.Entry e : files) {
            Path rel = base.equals(e.path()) ? e.path().getFileName() : base.relativize(e.path());
            if (globM != null && !(globM.matches(rel) || globM.matches(e.path().getFileName())
                    || globM2 != null && globM2.matches(rel))) {
                continue;
            }
            if (e.size() > config.search().grepMaxFileBytes()) {
                continue;
            }
            String shown = ctx.display(e.path());
            // opened from the root's directory handle without following links: a directory of the listing swapped
            // for a link since the walk cannot lead the read outside (ContainedFiles)
            SeekableByteChannel ch;
            try {
                ch = ContainedFiles.openForRead(ctx.root(), e.path(), shown);
            } catch (IOException ex) {
                continue; // gone or unreadable: skipped
            } catch (ToolError ex) {
                if (ex.rule().equals("path-changed")) {
                    throw ex;
                }
                continue; // no longer a regular file: skipped
            }
            try (BufferedReader r = new BufferedReader(new InputStreamReader(Channels.newInputStream(ch),
                    StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                            .onUnmappableCharacter(CodingErrorAction.REPLACE)))) {
                if (TextFiles.looksBinary(ch)) {
                    continue;
                }
                String line;
                int n = 0;
                while ((line = r.readLine()) != null) {
                    n++;
                    Matcher m = p.matcher(new FileWalker.Deadline(line, deadline));
                    if (m.find()) {
                        found++;
                        if (found <= max) {
                            String text = line.length() > maxLine ? line.substring(0, maxLine) + " … [cut]" : line;
                            out.append(shown).append(':').append(n).append(':').append(text).append('\n');
                        }
                    }
                    if (System.nanoTime() > deadline) {
                        complete = false;
                        break scan;
                    }
                }
            } catch (FileWalker.DeadlineExceeded ex) {
                complete = false;
                break;
            } catch (IOException ex) {
                // unreadable file: skipped
            }
        }
        if (found == 0) {
            out.append("(no matches)\n");
        }
        if (found > max) {
            out.append("[… ").append(found - max).append(" more matches not shown (").append(found)
                    .append(" in total); narrow the pattern, path or glob, or raise max_results]\n");
        }
        if (!complete) {
            out.append("[search stopped at its time bound of ").append(config.search().timeout().toSeconds())
                    .append(" s; results are incomplete]\n");
        }
        boolean truncated = found > max || !complete;
        return new ToolCallResult(out.toString().stripTrailing(), null, null, truncated ? Boolean.TRUE : null, null, 0);
    }
}
