package dev.cohort.toolrunner.service;

import dev.cohort.core.protocol.Ids;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.persistence.TeamWorkspaceStore;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Maps teams to workspaces and calls to directories. Team {@code default} works in the root; a team created with its
 * own workspace works there (resolved and checked by {@link #assign}, recorded in {@code toolrunner.team_workspaces},
 * so it holds on every replica and after a restart); other teams in {@code <teams-dir>/<team>}. A workspace that is
 * not a git repository is initialised with an (empty) initial commit, because worktrees need one. Runner state
 * (outputs, logs, HOME, worktrees) lives in the state directory, which must not be inside the root.
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
    @Inject
    TeamWorkspaceStore teamWorkspaces;

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
            Optional<String> own = recordedWorkspace(team);
            if (own.isPresent()) {
                ws = Path.of(own.get());
                if (!Files.isDirectory(ws)) {
                    throw new IllegalArgumentException("the workspace of team " + team + ", " + ws
                            + ", is no longer a directory");
                }
            } else {
                Path teams = Path.of(config.teamsDir());
                ws = realDir((teams.isAbsolute() ? teams : root().resolve(teams)).resolve(team));
            }
        }
        ensureGitRepository(ws);
        return ws;
    }

    private Optional<String> recordedWorkspace(String team) {
        try {
            return teamWorkspaces.find(team);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the workspace of team " + team + ": " + e.getMessage(), e);
        }
    }

    /**
     * Makes {@code requested} the workspace of {@code team} (the host creates the team with it): resolved against
     * the root when relative, symlinks resolved, inside one of {@link #allowedRoots()}, not overlapping the state
     * directory, a directory (created when missing), git-initialised when it is not a repository; then recorded.
     * Asking again with the same directory answers the same; a team's workspace is never moved.
     *
     * @return the workspace's real path
     * @throws ToolService.BadRequest naming the rule that refused it
     * @throws ToolService.Conflict when the team already has another workspace
     */
    public Path assign(String team, String requested) {
        if (!Ids.isTeam(team)) {
            throw new ToolService.BadRequest("team must match " + Ids.TEAM.pattern() + " (got '" + team + "')");
        }
        if (Ids.DEFAULT_TEAM.equals(team)) {
            throw refused("default-team", "team default always works in the workspace root");
        }
        Path ws = resolveTeamWorkspace(requested);
        ensureGitRepository(ws);
        String recorded;
        try {
            recorded = teamWorkspaces.claim(team, ws.toString(), requested);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot record the workspace of team " + team + ": " + e.getMessage(), e);
        }
        if (!recorded.equals(ws.toString())) {
            throw new ToolService.Conflict("team " + team + " already works in " + recorded
                    + "; a team's workspace is set once, when the team is created");
        }
        ready.put(team, ws);
        Log.infof("team=%s workspace %s (asked for '%s')", team, ws, requested);
        return ws;
    }

    /** The checks of {@link #assign}, up to creating the directory. */
    Path resolveTeamWorkspace(String requested) {
        if (requested == null || requested.isBlank()) {
            throw refused("workspace-path", "workspace is empty");
        }
        if (requested.indexOf('\0') >= 0 || requested.length() > PathPolicy.MAX_PATH_CHARS) {
            throw refused("workspace-path", "workspace is not a usable path (NUL byte, or longer than "
                    + PathPolicy.MAX_PATH_CHARS + " characters)");
        }
        Path asked;
        try {
            asked = Path.of(requested.strip());
        } catch (InvalidPathException e) {
            throw refused("workspace-path", "workspace '" + requested + "' is not a valid path: " + e.getReason());
        }
        Path real = realOfDeepestExisting((asked.isAbsolute() ? asked : root().resolve(asked)).normalize(), requested);
        checkInsideRoots(real, requested);
        Path state = stateDir();
        if (real.startsWith(state) || state.startsWith(real)) {
            throw refused("workspace-state-overlap", "workspace '" + requested + "' (" + real + ") overlaps the tool"
                    + " runner's state directory " + state + "; agents must not reach runner state");
        }
        if (Files.exists(real) && !Files.isDirectory(real)) {
            throw refused("workspace-not-a-directory", "workspace '" + requested + "' (" + real
                    + ") exists and is not a directory");
        }
        try {
            Files.createDirectories(real);
            real = real.toRealPath();
        } catch (IOException e) {
            throw refused("workspace-not-a-directory", "workspace '" + requested + "' (" + real
                    + ") cannot be created as a directory: " + e.getMessage());
        }
        checkInsideRoots(real, requested); // again: a link swapped in while the directories were made
        return real;
    }

    private void checkInsideRoots(Path real, String requested) {
        List<Path> roots = allowedRoots();
        if (roots.stream().noneMatch(real::startsWith)) {
            throw refused("workspace-roots", "workspace '" + requested + "' resolves to " + real
                    + ", which is not inside an allowed root " + roots + " (cohort.tool-runner.workspace-roots)");
        }
    }

    /** Real paths of {@code workspace-roots} (relative ones against the root); missing roots allow nothing. */
    public List<Path> allowedRoots() {
        List<Path> out = new ArrayList<>();
        for (Path r : config.workspaceRoots().orElse(List.of(root()))) {
            try {
                out.add((r.isAbsolute() ? r : root().resolve(r)).toRealPath());
            } catch (IOException e) {
                Log.warnf("workspace root %s does not exist: no team workspace can be in it", r);
            }
        }
        return out;
    }

    private static Path realOfDeepestExisting(Path candidate, String requested) {
        Path existing = candidate;
        while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            throw refused("workspace-path", "workspace '" + requested + "' has no existing ancestor");
        }
        try {
            return existing.toRealPath().resolve(existing.relativize(candidate));
        } catch (NoSuchFileException e) {
            throw refused("workspace-path", "workspace '" + requested + "' goes through a dangling symbolic link");
        } catch (IOException e) {
            throw refused("workspace-path", "cannot resolve workspace '" + requested + "': " + e.getMessage());
        }
    }

    private static ToolService.BadRequest refused(String rule, String message) {
        return new ToolService.BadRequest(message + " (rule: " + rule + ")");
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
