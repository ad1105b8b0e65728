package dev.cohort.toolrunner.tools;

import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.toolrunner.calls.Args;
import dev.cohort.toolrunner.calls.DeclaredTool;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.ToolError;
import dev.cohort.toolrunner.workspace.ContainedFiles;
import dev.cohort.toolrunner.workspace.FileWalker;
import dev.cohort.toolrunner.workspace.ToolContext;
import dev.langchain4j.agent.tool.ToolSpecification;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code file_tree {path?, depth?}}: the directory tree under {@code path} (default: the cwd), for a cheap overview of
 * a repository. Bounded three ways, and it always says what it left out:
 * <ul>
 * <li><b>depth</b> ({@value #DEFAULT_DEPTH} by default, at most {@value #MAX_DEPTH}): a directory at the limit shows
 * how many entries it holds instead of them;</li>
 * <li><b>entries per directory</b> (at most {@value #MAX_ENTRIES}, directories first, then by name): the rest are
 * counted;</li>
 * <li><b>size</b>: the tree is clipped at {@value #MAX_CHARS} characters (about a thousand tokens) with a marker.</li>
 * </ul>
 * {@code .git}, the usual dependency and tool directories ({@code node_modules}, virtual environments,
 * {@code __pycache__}, IDE settings) and whatever the workspace's {@code .gitignore} files ignore are skipped and
 * counted in a last line. Symbolic links are listed, never followed; other teams' workspaces are not shown.
 */
@ApplicationScoped
public class FileTreeTool extends DeclaredTool {
    /** The name the model calls it by. */
    public static final String NAME = "file_tree";

    static final int DEFAULT_DEPTH = 3;
    static final int MAX_DEPTH = 8;
    static final int MAX_ENTRIES = 20;
    static final int MAX_CHARS = 4000;
    /** Directories read per call: bounds the cost at the root of a huge tree. */
    private static final int MAX_DIRECTORIES = 5_000;
    /** A {@code .gitignore} larger than this is not read. */
    private static final int MAX_IGNORE_FILE = 64 * 1024;
    private static final Set<String> SKIPPED_DIRECTORIES = Set.of(".git", "node_modules", "venv", ".venv",
            "__pycache__", "site-packages", ".ipynb_checkpoints", ".vscode", ".idea", ".vs");

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Show the directory tree of the workspace (or of a directory in it), directories first: at most "
                    + MAX_ENTRIES + " entries per directory, " + DEFAULT_DEPTH + " levels by default, .git and ignored "
                    + "files skipped; it says what it left out. Use it to find your way before reading files.",
            ToolSchemas.object()
                    .addProperty("path", ToolSchemas.string("directory to show (default: the working directory)"))
                    .addProperty("depth", ToolSchemas.integer("levels to show, 1 to " + MAX_DEPTH + " (default "
                            + DEFAULT_DEPTH + ")"))
                    .build());

    public FileTreeTool() {
        super(SPEC, false);
    }

    @Inject
    ToolRunnerConfig config;

    @Override
    public ToolCallResult execute(ToolContext ctx, Args args) throws IOException {
        Integer depthArg = args.optInt("depth");
        int depth = depthArg == null ? DEFAULT_DEPTH : depthArg;
        if (depth < 1 || depth > MAX_DEPTH) {
            throw ToolError.badArgument("depth must be 1 to " + MAX_DEPTH + ", not " + depth);
        }
        Path base = args.has("path") ? ctx.resolve(args.string("path")) : ctx.cwd();
        if (!Files.isDirectory(base, LinkOption.NOFOLLOW_LINKS)) {
            throw new ToolError("not-a-directory", "path '" + args.optString("path", ".") + "' is not a directory");
        }
        Walk walk = new Walk(ctx, System.nanoTime() + config.search().timeout().toNanos());
        // the .gitignore files of the directories above the base apply too
        Path rel = ctx.root().relativize(base);
        Path dir = ctx.root();
        walk.readIgnores(dir, "");
        for (Path part : rel) {
            if (part.toString().isEmpty()) {
                break;
            }
            dir = dir.resolve(part);
            walk.readIgnores(dir, ctx.root().relativize(dir).toString() + "/");
        }
        String shown = ctx.display(base);
        walk.out.add(shown.equals(".") ? "./" : shown + "/");
        try (SecureDirectoryStream<Path> ds = ContainedFiles.openDirectory(ctx.root(), base, shown)) {
            walk.visit(ds, base, 1, depth);
        }
        return new ToolCallResult(walk.render(), null, null, walk.clipped ? Boolean.TRUE : null, null, 0);
    }

    /** One call's walk: the lines so far, the ignore rules met, and what was left out. */
    private static final class Walk {
        final ToolContext ctx;
        final long deadline;
        final List<String> out = new ArrayList<>();
        final List<Ignore> ignores = new ArrayList<>();
        int directories;
        int skipped;
        int ignored;
        boolean stopped;
        boolean clipped;

        Walk(ToolContext ctx, long deadline) {
            this.ctx = ctx;
            this.deadline = deadline;
        }

        void visit(SecureDirectoryStream<Path> ds, Path dir, int level, int depth) {
            readIgnores(ds, dir);
            List<Item> items = new ArrayList<>();
            for (FileWalker.Named entry : FileWalker.entries(ds)) {
                Path name = entry.name();
                BasicFileAttributes a = entry.attributes();
                Path child = dir.resolve(name);
                boolean isDir = a.isDirectory();
                if (isDir && ctx.foreign().stream().anyMatch(child::startsWith)) {
                    continue;
                }
                if (isDir && SKIPPED_DIRECTORIES.contains(name.toString())) {
                    skipped++;
                    continue;
                }
                String relPath = ctx.root().relativize(child).toString();
                if (ignores.stream().anyMatch(i -> i.matches(relPath, isDir))) {
                    ignored++;
                    continue;
                }
                items.add(new Item(name, isDir, a.isSymbolicLink()));
            }
            items.sort(Comparator.comparing((Item i) -> !i.dir).thenComparing(i -> i.name.toString()));
            String indent = "  ".repeat(level);
            int shown = Math.min(items.size(), MAX_ENTRIES);
            for (int i = 0; i < shown; i++) {
                Item item = items.get(i);
                if (!item.dir) {
                    out.add(indent + item.name + (item.link ? " -> (link)" : ""));
                    continue;
                }
                if (level >= depth || stopped) {
                    out.add(indent + item.name + "/ " + count(ds, item.name));
                    continue;
                }
                out.add(indent + item.name + "/");
                if (++directories > MAX_DIRECTORIES || System.nanoTime() > deadline) {
                    stopped = true;
                    continue;
                }
                int line = out.size() - 1;
                try (SecureDirectoryStream<Path> sub = ds.newDirectoryStream(item.name, LinkOption.NOFOLLOW_LINKS)) {
                    visit(sub, dir.resolve(item.name), level + 1, depth);
                } catch (IOException e) {
                    out.add(indent + "  [not readable]");
                }
                if (out.size() == line + 1) {
                    out.set(line, out.get(line) + " (empty)");
                }
            }
            if (items.size() > shown) {
                long dirs = items.subList(shown, items.size()).stream().filter(i -> i.dir).count();
                out.add(indent + "[… " + (items.size() - shown) + " more entries not shown (" + dirs + " directories, "
                        + (items.size() - shown - dirs) + " files)]");
            }
        }

        /** {@code (N entries)} of a directory below the depth limit, or {@code (not read)} once the walk stopped. */
        private String count(SecureDirectoryStream<Path> ds, Path name) {
            if (stopped) {
                return "(not read)";
            }
            int n = 0;
            try (SecureDirectoryStream<Path> sub = ds.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
                for (Path ignoredEntry : sub) {
                    n++;
                }
            } catch (IOException | DirectoryIteratorException e) {
                return "(not readable)";
            }
            return n == 0 ? "(empty)" : "(" + n + (n == 1 ? " entry" : " entries") + ", deeper than the depth)";
        }

        /** Reads {@code dir}'s {@code .gitignore} through the open directory, never following a link. */
        private void readIgnores(SecureDirectoryStream<Path> ds, Path dir) {
            String prefix = dir.equals(ctx.root()) ? "" : ctx.root().relativize(dir) + "/";
            if (ignores.stream().anyMatch(i -> i.prefix.equals(prefix))) {
                return; // read already (the directories above the base)
            }
            try (SeekableByteChannel ch = ds.newByteChannel(Path.of(".gitignore"),
                    Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
                parse(read(ch), prefix);
            } catch (IOException e) {
                // none, a link, or unreadable: nothing ignored here
            }
        }

        /** Reads the {@code .gitignore} of {@code dir}, a directory above the walked one. */
        void readIgnores(Path dir, String prefix) {
            try (SecureDirectoryStream<Path> ds = ContainedFiles.openDirectory(ctx.root(), dir, prefix)) {
                try (SeekableByteChannel ch = ds.newByteChannel(Path.of(".gitignore"),
                        Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
                    parse(read(ch), prefix);
                }
            } catch (IOException | RuntimeException e) {
                // none, a link, or unreadable: nothing ignored here
            }
        }

        private static String read(SeekableByteChannel ch) throws IOException {
            if (ch.size() > MAX_IGNORE_FILE) {
                return "";
            }
            ByteBuffer buf = ByteBuffer.allocate((int) ch.size());
            while (buf.hasRemaining() && ch.read(buf) > 0) {
                // fill
            }
            return new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8);
        }

        private void parse(String text, String prefix) {
            for (String raw : text.split("\n")) {
                String line = raw.strip();
                if (line.isEmpty() || line.startsWith("#") || line.startsWith("!")) {
                    continue; // a negation only makes git show more: skipping it can only hide, and that is counted
                }
                ignores.add(Ignore.of(line, prefix));
            }
        }

        String render() {
            StringBuilder s = new StringBuilder();
            int lines = 0;
            for (String line : out) {
                if (s.length() + line.length() + 1 > MAX_CHARS) {
                    clipped = true;
                    break;
                }
                s.append(line).append('\n');
                lines++;
            }
            if (clipped) {
                s.append("[tree clipped at ").append(MAX_CHARS).append(" characters: ").append(out.size() - lines)
                        .append(" more lines not shown; ask for a subdirectory or a smaller depth]\n");
            }
            List<String> left = new ArrayList<>();
            if (skipped > 0) {
                left.add(skipped + (skipped == 1 ? " directory" : " directories") + " like .git or node_modules");
            }
            if (ignored > 0) {
                left.add(ignored + (ignored == 1 ? " entry" : " entries") + " ignored by .gitignore");
            }
            if (!left.isEmpty()) {
                s.append("[not shown: ").append(String.join(", ", left)).append("]\n");
            }
            if (stopped) {
                clipped = true;
                s.append("[the walk stopped early (time or size bound); deeper directories were not read]\n");
            }
            return s.toString().stripTrailing();
        }
    }

    private record Item(Path name, boolean dir, boolean link) {
    }

    /** One {@code .gitignore} pattern, as a match on paths relative to the containment root. */
    private record Ignore(String prefix, Pattern regex, boolean directoryOnly) {

        static Ignore of(String pattern, String prefix) {
            String p = pattern;
            boolean directoryOnly = p.endsWith("/");
            while (p.endsWith("/")) {
                p = p.substring(0, p.length() - 1);
            }
            boolean anchored = p.startsWith("/") || p.contains("/");
            while (p.startsWith("/")) {
                p = p.substring(1);
            }
            String re = Pattern.quote(prefix) + (anchored ? "" : "(?:.*/)?") + glob(p);
            return new Ignore(prefix, Pattern.compile(re, Pattern.DOTALL), directoryOnly);
        }

        boolean matches(String path, boolean isDirectory) {
            return (isDirectory || !directoryOnly) && regex.matcher(path).matches();
        }

        private static String glob(String p) {
            StringBuilder re = new StringBuilder();
            for (int i = 0; i < p.length(); i++) {
                char c = p.charAt(i);
                if (c == '*' && p.startsWith("**/", i)) {
                    re.append("(?:.*/)?");
                    i += 2;
                } else if (c == '*' && p.startsWith("**", i)) {
                    re.append(".*");
                    i++;
                } else if (c == '*') {
                    re.append("[^/]*");
                } else if (c == '?') {
                    re.append("[^/]");
                } else {
                    re.append(Pattern.quote(String.valueOf(c)));
                }
            }
            return re.toString();
        }
    }
}
