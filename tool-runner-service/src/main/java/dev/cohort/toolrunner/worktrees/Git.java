package dev.cohort.toolrunner.worktrees;

import java.io.File;
import java.io.InputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.Map;

/**
 * Runs git for the runner itself (workspace initialisation, worktrees). Every failure — non-zero exit, timeout,
 * missing binary — is a {@link Result} with {@code ok == false}, never an exception, so callers treat "git failed"
 * as "cannot verify" instead of "nothing to worry about".
 *
 * <p>The repository is the model's: a sandboxed command may have written its {@code .git/config},
 * {@code .gitattributes} or {@code info/attributes}, and git runs programs named there (filters, {@code
 * core.fsmonitor}, {@code diff.external}, hooks, included config files). So every invocation runs behind a sandbox
 * prefix (the team's sandbox, see {@link WorkspaceGit}): whatever git starts is confined exactly like the model's own
 * commands. On top of that, the settings below are fixed on the command line, where the repository cannot override
 * them, and the machine's and user's config files are not read.
 */
public final class Git {
    /** Output kept per stream; git's answers here are short, a runaway one must not fill memory. */
    private static final int MAX_OUTPUT = 1_000_000;

    private Git() {
    }

    /** A git invocation's outcome. */
    public record Result(boolean ok, int exitCode, String out, String err) {
        /** stderr, or stdout when stderr is empty, trimmed: what to show when it failed. */
        public String message() {
            String m = err.isBlank() ? out : err;
            return m.strip();
        }
    }

    /**
     * Settings given on the command line, which win over every config file: no hooks, no file-system monitor
     * program, no pager or editor, no transport that runs a program, a fixed identity.
     */
    static final List<String> FIXED_CONFIG = List.of(
            "-c", "user.name=cohort",
            "-c", "user.email=cohort@cohort.invalid",
            "-c", "core.hooksPath=/dev/null",
            "-c", "core.fsmonitor=false",
            "-c", "core.pager=cat",
            "-c", "core.editor=true",
            "-c", "protocol.allow=never");

    /** Runs {@code git -C dir args…} without a sandbox (tests and the explicit {@code none} level). */
    public static Result run(Path dir, Duration timeout, Map<String, String> env, String... args) {
        return run(List.of(), dir, timeout, env, args);
    }

    /**
     * Runs {@code prefix… git -C dir args…} with a fixed identity and no prompts.
     *
     * @param prefix the sandbox's command line (empty: none)
     */
    public static Result run(List<String> prefix, Path dir, Duration timeout, Map<String, String> env, String... args) {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add("git");
        cmd.addAll(FIXED_CONFIG);
        cmd.addAll(List.of("-C", dir.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().clear();
        pb.environment().putAll(env);
        pb.environment().put("GIT_TERMINAL_PROMPT", "0");
        // neither /etc/gitconfig nor ~/.gitconfig (the team's HOME is writable by its commands)
        pb.environment().put("GIT_CONFIG_NOSYSTEM", "1");
        pb.environment().put("GIT_CONFIG_GLOBAL", "/dev/null");
        pb.environment().put("GIT_ATTR_NOSYSTEM", "1");
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            return new Result(false, -1, "", "cannot run git: " + e.getMessage());
        }
        StringBuilder out = new StringBuilder();
        StringBuilder err = new StringBuilder();
        Thread to = Thread.ofVirtual().start(() -> slurp(p.getInputStream(), out));
        Thread te = Thread.ofVirtual().start(() -> slurp(p.getErrorStream(), err));
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                return new Result(false, -1, "", "git " + args[0] + " timed out after " + timeout.toSeconds() + " s");
            }
            to.join(Duration.ofSeconds(5));
            te.join(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            return new Result(false, -1, "", "interrupted");
        }
        int code = p.exitValue();
        synchronized (out) {
            synchronized (err) {
                return new Result(code == 0, code, out.toString(), err.toString());
            }
        }
    }

    private static void slurp(InputStream in, StringBuilder sb) {
        try (in) {
            byte[] all = in.readNBytes(MAX_OUTPUT);
            synchronized (sb) {
                sb.append(new String(all, StandardCharsets.UTF_8));
            }
            in.transferTo(OutputStream.nullOutputStream());
        } catch (IOException ignored) {
            // process killed: keep what was read
        }
    }
}
