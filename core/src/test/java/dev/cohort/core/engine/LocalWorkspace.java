package dev.cohort.core.engine;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.Collections;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A test {@link WorkspaceToolExecutor} confined to a temporary directory: the same tool names, arguments and output
 * shapes as tool-runner-service (numbered read_file lines, exit codes), and like the runner it answers a repeated
 * call id from its record instead of running the call twice.
 */
final class LocalWorkspace implements WorkspaceToolExecutor {
    final Path root;
    final List<String> executed = Collections.synchronizedList(new ArrayList<>());
    /** Who asked for each call, in order (the engine's {@link Target}s). */
    final List<Target> targets = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, ToolOutcome> record = new ConcurrentHashMap<>();
    private final boolean dedupe;

    LocalWorkspace(Path root) {
        this(root, true);
    }

    /** {@code dedupe=false} runs a repeated call id again, to prove the engine itself never repeats one. */
    LocalWorkspace(Path root, boolean dedupe) {
        this.root = root.toAbsolutePath().normalize();
        this.dedupe = dedupe;
    }

    @Override
    public ToolOutcome execute(String tool, String callId, ObjectNode args, Target target) {
        ToolOutcome seen = record.get(callId);
        if (seen != null && dedupe) {
            return seen;
        }
        executed.add(tool + ":" + callId);
        targets.add(target);
        ToolOutcome out;
        try {
            out = run(tool, args);
        } catch (IOException e) {
            out = ToolOutcome.failure(e.toString());
        }
        record.put(callId, out);
        return out;
    }

    Path file(String rel) {
        return root.resolve(rel);
    }

    private Path resolve(String p) {
        Path r = root.resolve(p).normalize();
        if (!r.startsWith(root)) {
            throw new IllegalArgumentException("path outside the workspace: " + p);
        }
        return r;
    }

    private ToolOutcome run(String tool, ObjectNode a) throws IOException {
        try {
            return switch (tool) {
                case "bash" -> a.has("stdin") ? bashWithStdin(a.path("command").asText(), a.path("stdin").asText(),
                        a.path("timeout_ms").asLong(30_000)) : bash(a.path("command").asText());
                case "write_file" -> {
                    Path f = resolve(a.path("path").asText());
                    Files.createDirectories(f.getParent());
                    String c = a.path("content").asText();
                    Files.writeString(f, c);
                    yield ToolOutcome.ok("wrote " + c.getBytes(StandardCharsets.UTF_8).length + " bytes to "
                            + a.path("path").asText());
                }
                case "read_file" -> {
                    Path f = resolve(a.path("path").asText());
                    if (!Files.exists(f)) {
                        yield ToolOutcome.failure("file not found: " + a.path("path").asText());
                    }
                    List<String> lines = Files.readAllLines(f);
                    StringBuilder sb = new StringBuilder();
                    for (int i = 0; i < lines.size(); i++) {
                        sb.append(String.format("%6d\t%s%n", i + 1, lines.get(i)));
                    }
                    yield ToolOutcome.ok(sb.toString());
                }
                case "edit_file" -> {
                    Path f = resolve(a.path("path").asText());
                    String text = Files.readString(f);
                    String old = a.path("old_text").asText();
                    if (!text.contains(old)) {
                        yield ToolOutcome.failure("old_text not found in " + a.path("path").asText());
                    }
                    Files.writeString(f, text.replace(old, a.path("new_text").asText()));
                    yield ToolOutcome.ok("edited " + a.path("path").asText());
                }
                case "glob" -> {
                    PathMatcher m = FileSystems.getDefault().getPathMatcher("glob:" + a.path("pattern").asText());
                    try (Stream<Path> s = Files.walk(root)) {
                        List<String> hits = s.filter(Files::isRegularFile).map(root::relativize).filter(m::matches)
                                .map(Path::toString).sorted().toList();
                        yield ToolOutcome.ok(hits.isEmpty() ? "(no matches)" : String.join("\n", hits));
                    }
                }
                case "grep" -> bash("grep -rn -- " + quote(a.path("pattern").asText()) + " .");
                default -> ToolOutcome.failure("unknown tool " + tool);
            };
        } catch (IllegalArgumentException e) {
            return ToolOutcome.failure(e.getMessage());
        }
    }

    private ToolOutcome bash(String command) throws IOException {
        Process p = new ProcessBuilder("bash", "-c", command).directory(root.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return ToolOutcome.failure("timeout");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ToolOutcome.failure("interrupted");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new ToolOutcome(out, null, p.exitValue(), false, null, 0);
    }

    /** The tool runner's internal form: stdin from the text, stderr apart, the runner's timeout error. */
    private ToolOutcome bashWithStdin(String command, String stdin, long timeoutMs) throws IOException {
        Path in = Files.createTempFile("stdin", ".txt");
        Path out = Files.createTempFile("stdout", ".txt");
        Path err = Files.createTempFile("stderr", ".txt");
        try {
            Files.writeString(in, stdin);
            Process p = new ProcessBuilder("bash", "-c", command).directory(root.toFile())
                    .redirectInput(in.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            try {
                if (!p.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                    return ToolOutcome.failure("timed out after " + timeoutMs + " ms (rule: timeout)");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return ToolOutcome.failure("interrupted");
            }
            return new ToolOutcome(Files.readString(out), null, p.exitValue(), false, null, 0, Files.readString(err));
        } finally {
            Files.deleteIfExists(in);
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
