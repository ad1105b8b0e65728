package dev.cohort.toolrunner.worktrees;

import dev.cohort.toolrunner.persistence.WorktreeStore;
import dev.cohort.toolrunner.ToolError;
import dev.cohort.toolrunner.workspace.ToolContext;
import dev.cohort.toolrunner.workspace.Workspaces;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.List;
import java.util.Map;

/**
 * Git worktrees: branch {@code wt/<name>} from a <b>recorded</b> base commit
 * (explicit {@code base} or HEAD); the directory outside the main working tree (in the runner's state directory);
 * strict names; remove refuses uncommitted files <b>and</b> commits not in the base ({@code rev-list base..HEAD}) and
 * treats any git failure as "cannot verify"; keep requires the worktree to exist; create/remove/keep stored as
 * events in {@code toolrunner.worktree_events}. Operations of one team are serialised (git's own locks are not
 * meant for concurrent {@code worktree add}).
 */
@ApplicationScoped
public class WorktreeManager {
    @Inject
    Workspaces workspaces;
    @Inject
    WorktreeStore store;
    @Inject
    WorkspaceGit git;

    private final Map<String, ReentrantLock> teamLocks = new ConcurrentHashMap<>();

    /** A worktree as shown to the model. */
    public record Info(String name, String branch, String baseCommit, String cwd, String status, String taskId) {
    }

    /** Checks a name (the worktree name pattern plus git's ref rules); returns it or throws a model-visible error. */
    public static String validateName(String name) {
        if (name == null || name.isEmpty()) {
            throw new ToolError("invalid-worktree-name", "worktree name is empty");
        }
        if (name.equals(".") || name.equals("..") || name.contains("..") || name.startsWith("-")
                || name.startsWith(".") || name.endsWith(".lock") || name.endsWith(".")
                || !Workspaces.WORKTREE_NAME.matcher(name).matches()) {
            throw new ToolError("invalid-worktree-name", "invalid worktree name '" + name
                    + "': use 1–64 letters, digits, '.', '_' or '-', not starting with '.' or '-', without '..'");
        }
        return name;
    }

    private Git.Result git(ToolContext ctx, Path dir, String... args) {
        return git.run(ctx.team(), ctx.workspace(), dir, args);
    }

    private ReentrantLock lock(String team) {
        return teamLocks.computeIfAbsent(team, t -> new ReentrantLock());
    }

    public Info create(ToolContext ctx, String name, String base, String taskId) throws SQLException, IOException {
        validateName(name);
        if (base != null && (base.isBlank() || base.startsWith("-") || base.contains("..") || base.length() > 200
                || !base.matches("[A-Za-z0-9._/@^~{}-]+"))) {
            throw ToolError.badArgument("base must be a branch, tag or commit (got '" + base + "')");
        }
        String team = ctx.team();
        Path ws = ctx.workspace();
        ReentrantLock l = lock(team);
        l.lock();
        try {
            if (store.find(team, name).isPresent()) {
                throw new ToolError("worktree-exists", "worktree '" + name + "' already exists; pick another name or"
                        + " remove it first");
            }
            Path dir = workspaces.worktreesOf(team).resolve(name);
            if (Files.exists(dir)) {
                throw new ToolError("worktree-exists", "a directory for worktree '" + name
                        + "' exists without a record; remove_worktree cannot verify it — pick another name");
            }
            String branch = "wt/" + name;
            if (git(ctx, ws, "rev-parse", "--verify", "-q", "refs/heads/" + branch).ok()) {
                throw new ToolError("branch-exists", "branch " + branch
                        + " already exists in the repository; pick another name");
            }
            String rev = base == null ? "HEAD" : base;
            Git.Result r = git(ctx, ws, "rev-parse", "--verify", "-q", rev + "^{commit}");
            if (!r.ok()) {
                throw new ToolError("unknown-base", "base '" + rev + "' is not a commit in the team's repository");
            }
            String baseCommit = r.out().strip();
            Files.createDirectories(dir.getParent());
            Git.Result add = git(ctx, ws, "worktree", "add", "-q", "-b", branch, dir.toString(), baseCommit);
            if (!add.ok()) {
                throw new ToolError("git-error", "git worktree add failed: " + add.message());
            }
            WorktreeStore.Row row = new WorktreeStore.Row(team, name, branch, baseCommit, dir.toString(), taskId,
                    "active", ctx.agent(), null);
            if (!store.insert(row)) {
                git(ctx, ws, "worktree", "remove", "--force", dir.toString());
                git(ctx, ws, "branch", "-D", branch);
                throw new ToolError("worktree-exists", "worktree '" + name + "' was created concurrently");
            }
            store.event(team, name, "create", taskId, baseCommit, ctx.agent(), null);
            Log.infof("team=%s agent=%s call=%s worktree %s created on %s from %s", team, ctx.agent(), ctx.callId(),
                    name, branch, baseCommit);
            return new Info(name, branch, baseCommit, Workspaces.WORKTREE_PREFIX + name, "active", taskId);
        } finally {
            l.unlock();
        }
    }

    /** Removes a worktree, refusing when it holds work unless {@code discard}. Returns the message for the model. */
    public String remove(ToolContext ctx, String name, boolean discard) throws SQLException, IOException {
        validateName(name);
        String team = ctx.team();
        ReentrantLock l = lock(team);
        l.lock();
        try {
            WorktreeStore.Row row = store.find(team, name).orElseThrow(() -> new ToolError("worktree-not-found",
                    "worktree '" + name + "' does not exist"));
            Path dir = Path.of(row.path());
            if (ctx.worktree() != null && ctx.worktree().equals(name)) {
                throw new ToolError("worktree-in-use", "cannot remove worktree '" + name
                        + "' from a call running inside it");
            }
            if (!discard && Files.isDirectory(dir)) {
                Git.Result status = git(ctx, dir, "status", "--porcelain", "--untracked-files=all");
                Git.Result commits = git(ctx, dir, "rev-list", "--count", row.baseCommit() + "..HEAD");
                if (!status.ok() || !commits.ok()) {
                    throw new ToolError("cannot-verify", "cannot verify worktree '" + name + "' ("
                            + (!status.ok() ? status.message() : commits.message())
                            + "); set discard_changes=true to remove it anyway, or keep_worktree to keep it");
                }
                long files = status.out().lines().filter(s -> !s.isBlank()).count();
                long ahead = Long.parseLong(commits.out().strip());
                if (files > 0 || ahead > 0) {
                    throw new ToolError("worktree-has-work", "worktree '" + name + "' has " + files
                            + " uncommitted file(s) and " + ahead + " commit(s) not in its base " + abbrev(row.baseCommit())
                            + "; set discard_changes=true to delete them, or keep_worktree to keep it for review");
                }
            } else if (!discard) {
                throw new ToolError("cannot-verify", "worktree '" + name + "' has no directory any more;"
                        + " set discard_changes=true to drop its record and branch");
            }
            Path ws = ctx.workspace();
            if (Files.isDirectory(dir)) {
                Git.Result rm = git(ctx, ws, "worktree", "remove", "--force", "--force", dir.toString());
                if (!rm.ok()) {
                    throw new ToolError("git-error", "git worktree remove failed: " + rm.message());
                }
            }
            git(ctx, ws, "worktree", "prune");
            Git.Result br = git(ctx, ws, "branch", "-D", row.branch());
            store.delete(team, name);
            store.event(team, name, "remove", row.taskId(), row.baseCommit(), ctx.agent(),
                    discard ? "discard_changes" : null);
            Log.infof("team=%s agent=%s call=%s worktree %s removed%s", team, ctx.agent(), ctx.callId(), name,
                    discard ? " (changes discarded)" : "");
            return "Removed worktree '" + name + "'" + (br.ok() ? " and branch " + row.branch()
                    : "; branch " + row.branch() + " could not be deleted: " + br.message());
        } finally {
            l.unlock();
        }
    }

    public String keep(ToolContext ctx, String name) throws SQLException {
        validateName(name);
        String team = ctx.team();
        WorktreeStore.Row row = store.find(team, name).orElseThrow(() -> new ToolError("worktree-not-found",
                "worktree '" + name + "' does not exist; nothing to keep"));
        store.setStatus(team, name, "kept");
        store.event(team, name, "keep", row.taskId(), row.baseCommit(), ctx.agent(), null);
        Log.infof("team=%s agent=%s call=%s worktree %s kept", team, ctx.agent(), ctx.callId(), name);
        return "Kept worktree '" + name + "' for review (branch " + row.branch() + ", base " + abbrev(row.baseCommit())
                + ")";
    }

    public List<Info> list(ToolContext ctx) throws SQLException {
        return store.list(ctx.team()).stream().map(r -> new Info(r.name(), r.branch(), r.baseCommit(),
                Workspaces.WORKTREE_PREFIX + r.name(), Files.isDirectory(Path.of(r.path())) ? r.status() : "missing",
                r.taskId())).toList();
    }

    private static String abbrev(String sha) {
        return sha.length() > 12 ? sha.substring(0, 12) : sha;
    }
}
