package dev.cohort.toolrunner.tools;

import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.toolrunner.calls.Args;
import dev.cohort.toolrunner.calls.DeclaredTool;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.ToolError;
import dev.cohort.toolrunner.workspace.FileWalker;
import dev.cohort.toolrunner.workspace.ToolContext;
import dev.langchain4j.agent.tool.ToolSpecification;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.Comparator;
import java.util.List;

/**
 * {@code glob {pattern, path?}}: files matching a glob relative to {@code path} (default: the cwd); {@code **}
 * crosses directories (and also matches none: {@code **}{@code /*.java} finds top-level files too); dotfiles
 * included, {@code .git} skipped; newest first; capped, saying how many were left out.
 */
@ApplicationScoped
public class GlobTool extends DeclaredTool {
    /** The name the model calls it by. */
    public static final String NAME = "glob";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Find workspace files by glob pattern (recursive with **), newest first.",
            ToolSchemas.object().addProperty("pattern", ToolSchemas.string("e.g. '**/*.java'")).addProperty("path", ToolSchemas.string("directory to search from (default: the working directory)")).required("pattern").build());

    public GlobTool() {
        super(SPEC, false);
    }

    /** Files examined per call: bounds the cost of a glob at the root of a huge tree. */
    private static final int MAX_WALK = 500_000;

    @Inject
    ToolRunnerConfig config;

    @Override
    public ToolCallResult execute(ToolContext ctx, Args args) throws IOException {
        String pattern = args.string("pattern");
        if (pattern.isBlank()) {
            throw ToolError.badArgument("pattern is empty");
        }
        if (pattern.startsWith("/") || pattern.equals("..") || pattern.startsWith("../") || pattern.contains("/../")) {
            throw new ToolError("workspace-containment", "glob patterns are relative to the workspace and cannot "
                    + "start with '/' or contain '..'; use path to pick a directory");
        }
        Path base = args.has("path") ? ctx.resolve(args.string("path")) : ctx.cwd();
        if (!Files.isDirectory(base)) {
            throw new ToolError("not-a-directory", "path '" + args.optString("path", ".") + "' is not a directory");
        }
        PathMatcher m;
        PathMatcher m2;
        try {
            m = FileSystems.getDefault().getPathMatcher("glob:" + pattern);
            m2 = pattern.startsWith("**/") ? FileSystems.getDefault().getPathMatcher("glob:" + pattern.substring(3)) : null;
        } catch (IllegalArgumentException e) {
            throw ToolError.badArgument("invalid glob pattern: " + e.getMessage());
        }
        long deadline = System.nanoTime() + config.search().timeout().toNanos();
        FileWalker.Listing listing = FileWalker.walk(ctx.root(), base, deadline, MAX_WALK, ctx.foreign());
        List<FileWalker.Entry> hits = listing.files().stream().filter(e -> {
            Path rel = base.relativize(e.path());
            return m.matches(rel) || m2 != null && m2.matches(rel);
        }).sorted(Comparator.comparingLong(FileWalker.Entry::mtime).reversed()
                .thenComparing(e -> e.path().toString())).toList();
        int cap = config.search().globMaxResults();
        StringBuilder out = new StringBuilder();
        hits.stream().limit(cap).forEach(e -> out.append(ctx.display(e.path())).append('\n'));
        boolean truncated = hits.size() > cap || !listing.complete();
        if (hits.isEmpty()) {
            out.append("(no matches)\n");
        }
        if (hits.size() > cap) {
            out.append("[… ").append(hits.size() - cap).append(" more matches not shown (").append(hits.size())
                    .append(" in total); narrow the pattern or the path]\n");
        }
        if (!listing.complete()) {
            out.append("[search stopped early (time or size bound); results are incomplete]\n");
        }
        return new ToolCallResult(out.toString().stripTrailing(), null, null, truncated ? Boolean.TRUE : null, null, 0);
    }
}
