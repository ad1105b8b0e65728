package dev.cohort.toolrunner.worktrees;

import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.sandbox.CommandSandbox;
import dev.cohort.toolrunner.workspace.WorkspaceRepository;
import dev.cohort.toolrunner.workspace.Workspaces;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The runner's own git on a team's repository (initialising the workspace, creating, checking and removing
 * worktrees), run inside the team's sandbox: the same namespaces, hidden directories and empty environment as the
 * team's {@code bash} calls, writable only where the operation must write (the workspace with its {@code .git}, the
 * team's worktrees, the team's {@code HOME}). A filter, {@code core.fsmonitor} program or included config file the
 * model put in the repository therefore runs — if git runs it at all — with the model's rights, never the runner's:
 * it sees no other process (no {@code /proc/<pid>/environ} of a service), no network, no runner state and no other
 * team's workspace.
 */
@ApplicationScoped
public class WorkspaceGit implements WorkspaceRepository {
    @Inject
    ToolRunnerConfig config;
    @Inject
    Workspaces workspaces;
    @Inject
    CommandSandbox sandbox;

    /** Runs {@code git -C dir args…} for {@code team} in its sandbox; {@code dir} is its workspace or a worktree. */
    public Git.Result run(String team, Path workspace, Path dir, String... args) {
        Path home = workspaces.home(team);
        Path worktrees = workspaces.worktreesOf(team);
        try {
            Files.createDirectories(worktrees);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the worktrees directory " + worktrees, e);
        }
        List<Path> writable = List.of(workspace, realPath(worktrees), home);
        List<Path> others = workspaces.othersOf(team).stream().filter(o -> !o.equals(workspace)).toList();
        List<String> prefix = sandbox.gitPrefix(dir, writable, others);
        Map<String, String> env = Map.of("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"),
                "HOME", home.toString(), "LANG", "C.UTF-8");
        return Git.run(prefix, dir, config.gitTimeout(), env, args);
    }

    /** Makes {@code ws} a git repository with a commit, with the runner's git inside the team's sandbox. */
    @Override
    public void ensure(String team, Path ws) {
        Git.Result top = run(team, ws, ws, "rev-parse", "--show-toplevel");
        boolean isRepoRoot = top.ok() && Path.of(top.out().strip()).equals(ws);
        if (!isRepoRoot) {
            Git.Result init = run(team, ws, ws, "init", "-q");
            if (!init.ok()) {
                throw new IllegalStateException("cannot initialise a git repository in " + ws + ": " + init.message());
            }
            Log.infof("initialised a git repository in workspace %s", ws);
        }
        if (!run(team, ws, ws, "rev-parse", "--verify", "-q", "HEAD").ok()) {
            Git.Result c = run(team, ws, ws, "commit", "-q", "--allow-empty", "-m",
                    "cohort: initial commit (worktrees need one)");
            if (!c.ok()) {
                throw new IllegalStateException("cannot create the initial commit in " + ws + ": " + c.message());
            }
        }
    }

    private static Path realPath(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot resolve " + p, e);
        }
    }
}
