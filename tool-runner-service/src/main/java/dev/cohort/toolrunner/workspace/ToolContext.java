package dev.cohort.toolrunner.workspace;

import java.nio.file.Path;
import java.util.List;

/**
 * Who calls and where: identity from the host (never from model arguments) and the resolved location.
 *
 * @param workspace the team's workspace (real path)
 * @param root      the containment root: the workspace, or the worktree the call runs in
 * @param cwd       the directory relative paths start from (inside {@code root})
 * @param worktree  the worktree name when the call runs in one, else {@code null}
 * @param readOnly  the host says the agent works read-only (plan mode): nothing may be written
 * @param others    the directories holding other teams' workspaces ({@link Workspaces#othersOf}, without the team's
 *                  own): hidden from the call's commands, refused to its file tools
 */
public record ToolContext(String team, String agent, String callId, Path workspace, Path root, Path cwd,
        String worktree, boolean readOnly, List<Path> others) {

    public ToolContext {
        others = List.copyOf(others);
    }

    /** A call that may write. */
    public ToolContext(String team, String agent, String callId, Path workspace, Path root, Path cwd, String worktree) {
        this(team, agent, callId, workspace, root, cwd, worktree, false);
    }

    /** A call without other teams' workspaces to keep it from (tests of a single team). */
    public ToolContext(String team, String agent, String callId, Path workspace, Path root, Path cwd, String worktree,
            boolean readOnly) {
        this(team, agent, callId, workspace, root, cwd, worktree, readOnly, List.of());
    }

    /**
     * The other teams' workspaces a path of this call could reach: those of {@link #others} inside the containment
     * root (team {@code default}'s teams directory, a team's own workspace inside its root).
     */
    public List<Path> foreign() {
        return PathPolicy.inside(root, others);
    }

    /** Resolves a model-given path inside the containment root, never into another team's workspace. */
    public Path resolve(String userPath) {
        return PathPolicy.resolveForFileAccess(root, cwd, userPath, foreign());
    }

    /**
     * Resolves a model-given path to write: as {@link #resolve}, and never into the workspace's settings directory
     * {@link ProtectedConfig#DIR}, however the path spells it ({@code ..}, a symbolic link, another letter case).
     */
    public Path resolveForWrite(String userPath) {
        Path real = resolve(userPath);
        ProtectedConfig.refuseWrite(root, real, userPath);
        return real;
    }

    /** A path as the model should see it: relative to the cwd when inside it, else relative to the root. */
    public String display(Path p) {
        if (p.startsWith(cwd)) {
            String r = cwd.relativize(p).toString();
            return r.isEmpty() ? "." : r;
        }
        return root.relativize(p).toString();
    }
}
