package dev.cohort.toolrunner.service;

import dev.cohort.toolrunner.config.ToolRunnerConfig;
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
public class WorkspaceGit {
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

    private static Path realPath(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot resolve " + p, e);
        }
    }
}
