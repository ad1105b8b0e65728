package dev.cohort.toolrunner.service;

import dev.cohort.core.protocol.Ids;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Maps teams to workspaces and calls to directories. Team {@code default} works in the root; other teams in
 * {@code <teams-dir>/<team>}. A workspace that is not a git repository is initialised with an (empty) initial
 * commit, because worktrees need one. Runner state (outputs, logs, HOME, worktrees) lives in the state directory,
 * which must not be inside the root.
 */
@ApplicationScoped
public class Workspaces {
    /** Prefix of a {@code cwd} that names a worktree: {@code wt:<name>[/<dir>]}. */
    public static final String WORKTREE_PREFIX = "wt:";
    /** Worktree names (s18): letters, digits, dot, underscore, hyphen, 1–64 characters. */
    public static final Pattern WORKTREE_NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /** Where one call runs. */
    public record Location(String team, Path workspace, Path root, Path cwd, String worktree) {
    }

    @Inject
    ToolRunnerConfig config;

    private final Map<String, Path> ready = new ConcurrentHashMap<>();
    private volatile Path realRoot;
    private volatile Path realState;

    /** Real path of the workspace root (created if missing). */
    public Path root() {
        Path r = realRoot;
        if (r == null) {
            r = realDir(config.workspaceRoot());
            realRoot = r;
        }
        return r;
    }

    /** Real path of the state directory (created if missing). */
    public Path stateDir() {
        Path s = realState;
        if (s == null) {
            s = realDir(config.stateDir());
            Path r = root();
            if (s.startsWith(r)) {
                Log.warnf("state dir %s is inside the workspace root %s: agents could read runner state", s, r);
            }
            realState = s;
        }
        return s;
    }

    /** The team's HOME for commands: in the state directory, never in the workspace. */
    public Path home(String team) {
        return realDir(stateDir().resolve("teams").resolve(team).resolve("home"));
    }

    /** Directory of the team's stored outputs and background logs. */
    public Path outputs(String team) {
        return stateDir().resolve("teams").resolve(team).resolve("outputs");
    }

    /** Directory holding the team's worktrees. */
    public Path worktreesOf(String team) {
        Path base = config.worktreesDir().orElse(stateDir().resolve("worktrees"));
        return realDir(base).resolve(team);
    }

    /** The team's workspace, created and git-initialised on first use. */
    public Path workspace(String team) {
        return ready.computeIfAbsent(team, this::prepare);
    }

    private Path prepare(String team) {
        Path ws;
        if (Ids.DEFAULT_TEAM.equals(team)) {
            ws = root();
        } else {
            Path teams = Path.of(config.teamsDir());
            ws = realDir((teams.isAbsolute() ? teams : root().resolve(teams)).resolve(team));
        }
        ensureGitRepository(ws);
        return ws;
    }

    private void ensureGitRepository(Path ws) {
        Map<String, String> env = Map.of("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"),
                "HOME", stateDir().toString());
        Git.Result top = Git.run(ws, config.gitTimeout(), env, "rev-parse", "--show-toplevel");
        boolean isRepoRoot = top.ok() && Path.of(top.out().strip()).equals(ws);
        if (!isRepoRoot) {
            Git.Result init = Git.run(ws, config.gitTimeout(), env, "init", "-q");
            if (!init.ok()) {
                throw new IllegalStateException("cannot initialise a git repository in " + ws + ": " + init.message());
            }
            Log.infof("initialised a git repository in workspace %s", ws);
        }
        if (!Git.run(ws, config.gitTimeout(), env, "rev-parse", "--verify", "-q", "HEAD").ok()) {
            Git.Result c = Git.run(ws, config.gitTimeout(), env, "commit", "-q", "--allow-empty", "-m",
                    "cohort: initial commit (worktrees need one)");
            if (!c.ok()) {
                throw new IllegalStateException("cannot create the initial commit in " + ws + ": " + c.message());
            }
        }
    }

    /**
     * Resolves the host-chosen {@code cwd}: empty for the workspace, a workspace-relative directory, or
     * {@code wt:<name>[/<dir>]} for a worktree (then the worktree is the containment root).
     *
     * @throws IllegalArgumentException when cwd is invalid (a host error, answered 400)
     */
    public Location locate(String team, String cwd) {
        Path ws = workspace(team);
        String c = cwd == null ? "" : cwd.strip();
        Path root = ws;
        String worktree = null;
        String rel = c;
        if (c.startsWith(WORKTREE_PREFIX)) {
            String rest = c.substring(WORKTREE_PREFIX.length());
            int slash = rest.indexOf('/');
            worktree = slash < 0 ? rest : rest.substring(0, slash);
            rel = slash < 0 ? "" : rest.substring(slash + 1);
            if (!WORKTREE_NAME.matcher(worktree).matches() || worktree.equals(".") || worktree.equals("..")) {
                throw new IllegalArgumentException("cwd names an invalid worktree '" + worktree + "'");
            }
            Path wt = worktreesOf(team).resolve(worktree);
            if (!Files.isDirectory(wt)) {
                throw new IllegalArgumentException("cwd names worktree '" + worktree + "', which does not exist");
            }
            try {
                root = wt.toRealPath();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        if (rel.isEmpty() || rel.equals(".")) {
            return new Location(team, ws, root, root, worktree);
        }
        if (rel.startsWith("/")) {
            throw new IllegalArgumentException("cwd must be relative to the workspace, not absolute: " + cwd);
        }
        Path dir;
        try {
            dir = PathPolicy.resolve(root, root, rel);
        } catch (ToolError e) {
            throw new IllegalArgumentException("cwd '" + cwd + "' is not usable: " + e.modelMessage());
        }
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("cwd '" + cwd + "' is not an existing directory");
        }
        return new Location(team, ws, root, dir, worktree);
    }

    private static Path realDir(Path p) {
        try {
            Files.createDirectories(p);
            return p.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create directory " + p, e);
        }
    }
}
